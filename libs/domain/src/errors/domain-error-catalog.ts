/** What a domain error code means to a client: a title and a description. */
interface DomainErrorDescription {
  readonly title: string;
  readonly description: string;
}

/**
 * Every domain error code and its documented meaning. The api documents each as a problem type
 * (`/problems/<code>`) and chooses the status it is answered with.
 */
export const domainErrorCatalog = {
  'invalid-amount': {
    title: 'The amount is not a positive whole number of minor units',
    description:
      'Amounts and prices are integers of the currency’s minor units (cents for EUR): no fractions, no values beyond ' +
      '2^53 − 1. Payments, reservations and invoice totals must be greater than zero; unit prices may be zero.',
  },
  'invalid-quantity': {
    title: 'The quantity is not a valid whole number',
    description:
      'Order and invoice line quantities are positive integers; a counted stock quantity is an integer of zero or more.',
  },
  'invalid-currency': {
    title: 'The currency is not an ISO 4217 code',
    description: 'Currencies are ISO 4217 alphabetic codes: three upper-case letters such as EUR or USD.',
  },
  'currency-mismatch': {
    title: 'The amount is in another currency',
    description:
      'A payment must be in the currency of its invoice, and every line of an order or invoice in the currency of the ' +
      'whole. `data` names the expected and the given currency.',
  },
  'invoice-not-found': {
    title: 'No such invoice',
    description: 'The invoice was never issued for this tenant, so nothing can be paid on it.',
  },
  'invoice-already-issued': {
    title: 'The invoice is already issued',
    description:
      'An invoice with this id exists. Issuing is done once; use a new invoice id for a new invoice.',
  },
  'empty-invoice': {
    title: 'The invoice has no lines',
    description: 'An invoice is issued either with at least one line or with a total.',
  },
  'payment-exceeds-balance': {
    title: 'The payment exceeds the outstanding balance',
    description:
      'The outstanding balance is the total minus what is paid minus what is held for card payments in progress. ' +
      'A payment or card reservation above it is refused, so an invoice is never overpaid. `data.outstanding` says ' +
      'how much can still be paid.',
  },
  'payment-already-recorded': {
    title: 'This payment id is already used on the invoice',
    description:
      'A payment (cash, card, or a card reservation) with this payment id was already recorded. Each payment has its ' +
      'own id; a retry of the same request is answered by its Idempotency-Key instead.',
  },
  'card-reservation-not-found': {
    title: 'No card reservation for this payment',
    description:
      'A card charge can only be recorded for a payment whose amount was first reserved on the invoice.',
  },
  'card-charge-already-recorded': {
    title: 'The card charge already has another outcome',
    description:
      'The gateway outcome for this payment was recorded before, with a different outcome or gateway reference. ' +
      'Repeating the same outcome is accepted and changes nothing.',
  },
  'order-not-found': {
    title: 'No such order',
    description: 'The order was never placed for this tenant.',
  },
  'order-already-placed': {
    title: 'The order is already placed',
    description: 'An order with this id exists; placing is done once.',
  },
  'empty-order': {
    title: 'The order has no lines',
    description: 'An order needs at least one line (sku, quantity, unit price).',
  },
  'order-awaiting-review': {
    title: 'The order is held for review',
    description:
      'The prices changed between the moment the client built the order (its expected total) and its submission, so ' +
      'the order was held rather than silently repriced. It can be served once the new total is approved.',
  },
  'order-not-held': {
    title: 'The order is not held for review',
    description: 'Only an order held for review can be approved.',
  },
  'order-not-served': {
    title: 'The order has not been served',
    description: 'An order becomes a sale only after it was served.',
  },
  'order-already-served': {
    title: 'The order is already served',
    description: 'Serving is done once; the next step is completing the order.',
  },
  'order-already-completed': {
    title: 'The order is already completed',
    description: 'The order was completed and its sale recorded; a sale is recorded exactly once per order.',
  },
  'stock-count-not-found': {
    title: 'No such stock count',
    description: 'The stock count was never opened for this tenant.',
  },
  'stock-count-already-opened': {
    title: 'The stock count is already open',
    description: 'A stock count with this id exists; opening is done once.',
  },
  'stock-count-already-posted': {
    title: 'The stock count is already posted',
    description: 'A stock count is posted once; after that its lines can no longer change.',
  },
  'empty-stock-count': {
    title: 'The stock count has no lines',
    description: 'Record at least one counted line before posting a stock count.',
  },
  'webhook-endpoint-not-found': {
    title: 'No such webhook endpoint',
    description: 'The endpoint was never registered for this tenant, or it was deleted.',
  },
  'webhook-endpoint-already-registered': {
    title: 'The webhook endpoint is already registered',
    description:
      'An endpoint with this id exists. Registering is done once; a new key registers a new endpoint.',
  },
  'invalid-webhook-event-types': {
    title: 'The event types cannot be subscribed to',
    description:
      'An endpoint subscribes to at least one of the documented event types (`GET /webhook-endpoints/event-types`); ' +
      '`data.unknown` lists the types that are not among them.',
  },
  'card-settlement-not-found': {
    title: 'No card settlement for this payment',
    description:
      'Only a card payment that was reserved on its invoice has a settlement to record attempts on or resolve.',
  },
  'card-settlement-already-settled': {
    title: 'The card payment is already settled',
    description:
      'The payment already ended approved or declined, with another outcome or gateway reference than this one. ' +
      'Repeating the same outcome is accepted and changes nothing.',
  },
  'card-settlement-not-awaiting-operator': {
    title: 'The card payment does not need attention',
    description:
      'An operator resolves a card payment only once the completer has given up on it (`needs-attention`); until ' +
      'then the completer keeps inquiring and settles it itself.',
  },
} as const satisfies Record<string, DomainErrorDescription>;

/** Every code a `DomainError` can carry. */
export type DomainErrorCode = keyof typeof domainErrorCatalog;
