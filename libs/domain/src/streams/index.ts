export {
  cardSettlementStream,
  invoiceStream,
  orderStream,
  stockCountStream,
  streamPrefixes,
  webhookEndpointStream,
} from './stream-names.js';
