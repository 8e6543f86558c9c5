export type { Brand } from './brand.js';
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
} from './ids.js';
export type {
  CustomerRef,
  InvoiceId,
  OrderId,
  PaymentId,
  SaleId,
  Sku,
  StockCountId,
  TenantId,
  Timestamp,
  WebhookEndpointId,
} from './ids.js';
export { isCurrencyCode, isMinorUnits, money } from './money.js';
export type { CurrencyCode, Money } from './money.js';
