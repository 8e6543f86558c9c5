export { foldEvents } from './decider/index.js';
export type { Decider, Message } from './decider/index.js';
export {
  CurrencyMismatch,
  DomainError,
  domainError,
  domainErrorCatalog,
  InvalidAmount,
  InvalidCurrency,
  InvalidQuantity,
} from './errors/index.js';
export type { DomainErrorCode } from './errors/index.js';
export {
  asCustomerRef,
  asInvoiceId,
  asOrderId,
  asPaymentId,
  asSaleId,
  asSku,
  asStockCountId,
  asTenantId,
  asWebhookEndpointId,
  isCurrencyCode,
  isMinorUnits,
  money,
} from './values/index.js';
export type {
  Brand,
  CurrencyCode,
  CustomerRef,
  InvoiceId,
  Money,
  OrderId,
  PaymentId,
  SaleId,
  Sku,
  StockCountId,
  TenantId,
  Timestamp,
  WebhookEndpointId,
} from './values/index.js';
export {
  cardSettlementStream,
  invoiceStream,
  orderStream,
  stockCountStream,
  streamPrefixes,
  webhookEndpointStream,
} from './streams/index.js';
