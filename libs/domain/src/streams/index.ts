export {
  cardSettlementStream,
  invoiceStream,
  menuStream,
  orderStream,
  stockCountStream,
  streamPrefixes,
  webhookEndpointStream,
} from './stream-names.js';
