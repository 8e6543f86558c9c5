import type { Brand } from './brand.js';

export type TenantId = Brand<string, 'TenantId'>;
export type InvoiceId = Brand<string, 'InvoiceId'>;
export type PaymentId = Brand<string, 'PaymentId'>;
export type CustomerRef = Brand<string, 'CustomerRef'>;
export type OrderId = Brand<string, 'OrderId'>;
export type SaleId = Brand<string, 'SaleId'>;
export type StockCountId = Brand<string, 'StockCountId'>;
export type Sku = Brand<string, 'Sku'>;
export type WebhookEndpointId = Brand<string, 'WebhookEndpointId'>;

/** An instant as an ISO 8601 UTC string (`2026-01-31T12:00:00.000Z`); it always arrives with the command. */
export type Timestamp = string;

// The edge (HTTP schemas, UUIDv5 derivation) validates ids; these only give a checked string its name.

/** Names a validated string as a tenant id. @example asTenantId('t-1') */
export const asTenantId = (value: string): TenantId => value as TenantId;
/** Names a validated string as an invoice id. @example asInvoiceId('inv-1') */
export const asInvoiceId = (value: string): InvoiceId => value as InvoiceId;
/** Names a validated string as a payment id. @example asPaymentId('pay-1') */
export const asPaymentId = (value: string): PaymentId => value as PaymentId;
/** Names a validated string as a customer reference. @example asCustomerRef('cust-42') */
export const asCustomerRef = (value: string): CustomerRef => value as CustomerRef;
/** Names a validated string as an order id. @example asOrderId('ord-1') */
export const asOrderId = (value: string): OrderId => value as OrderId;
/** Names a validated string as a sale id. @example asSaleId('sale-1') */
export const asSaleId = (value: string): SaleId => value as SaleId;
/** Names a validated string as a stock count id. @example asStockCountId('sc-1') */
export const asStockCountId = (value: string): StockCountId => value as StockCountId;
/** Names a validated string as a stock-keeping unit. @example asSku('espresso-beans-1kg') */
export const asSku = (value: string): Sku => value as Sku;
/** Names a validated string as a webhook endpoint id. @example asWebhookEndpointId('ep-1') */
export const asWebhookEndpointId = (value: string): WebhookEndpointId => value as WebhookEndpointId;
