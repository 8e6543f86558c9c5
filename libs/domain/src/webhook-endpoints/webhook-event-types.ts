/**
 * The domain events a tenant may subscribe a webhook endpoint to: the public facts of orders, invoices and stock
 * counts. The key log, inbox streams and the endpoints' own events are never delivered.
 */
export const webhookEventTypes = [
  'OrderPlaced',
  'OrderHeldForReview',
  'OrderApproved',
  'OrderServed',
  'OrderCompleted',
  'SaleRecorded',
  'InvoiceIssued',
  'PaymentRecorded',
  'CardPaymentReserved',
  'CardPaymentCaptured',
  'CardPaymentDeclined',
  'StockCountOpened',
  'StockCountLineRecorded',
  'StockCountPosted',
] as const;

export type WebhookEventType = (typeof webhookEventTypes)[number];

const known: ReadonlySet<string> = new Set(webhookEventTypes);

/** True for an event type an endpoint can subscribe to. @example isWebhookEventType('OrderPlaced') // true */
export const isWebhookEventType = (type: string): type is WebhookEventType => known.has(type);
