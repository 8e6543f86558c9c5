import type {
  InvoiceId,
  OrderId,
  PaymentId,
  StockCountId,
  TenantId,
  WebhookEndpointId,
} from '../values/index.js';

/** The prefix of each aggregate's streams, for global reads filtered by stream prefix. */
export const streamPrefixes = {
  invoice: 'invoice-',
  order: 'order-',
  stockCount: 'stock-count-',
  webhookEndpoint: 'webhook-endpoint-',
  cardSettlement: 'card-settlement-',
  menu: 'menu-',
} as const;

/**
 * The menu of one tenant: its items and their prices, read by every order placed.
 * @example menuStream(tenantId) // 'menu-<tenant>'
 */
export const menuStream = (tenantId: TenantId): string => `${streamPrefixes.menu}${tenantId}`;

/**
 * The stream of one invoice (its payments included).
 * @example invoiceStream(tenantId, invoiceId) // 'invoice-<tenant>-<invoice>'
 */
export const invoiceStream = (tenantId: TenantId, invoiceId: InvoiceId): string =>
  `${streamPrefixes.invoice}${tenantId}-${invoiceId}`;

/**
 * The stream of one order (its sale included).
 * @example orderStream(tenantId, orderId) // 'order-<tenant>-<order>'
 */
export const orderStream = (tenantId: TenantId, orderId: OrderId): string =>
  `${streamPrefixes.order}${tenantId}-${orderId}`;

/**
 * The stream of one stock count.
 * @example stockCountStream(tenantId, stockCountId) // 'stock-count-<tenant>-<count>'
 */
export const stockCountStream = (tenantId: TenantId, stockCountId: StockCountId): string =>
  `${streamPrefixes.stockCount}${tenantId}-${stockCountId}`;

/**
 * The stream of one webhook endpoint.
 * @example webhookEndpointStream(tenantId, endpointId) // 'webhook-endpoint-<tenant>-<endpoint>'
 */
export const webhookEndpointStream = (tenantId: TenantId, endpointId: WebhookEndpointId): string =>
  `${streamPrefixes.webhookEndpoint}${tenantId}-${endpointId}`;

/**
 * The settlement of one card payment whose outcome was once unknown: its attempts, and how it ended.
 * @example cardSettlementStream(tenantId, paymentId) // 'card-settlement-<tenant>-<payment>'
 */
export const cardSettlementStream = (tenantId: TenantId, paymentId: PaymentId): string =>
  `${streamPrefixes.cardSettlement}${tenantId}-${paymentId}`;
