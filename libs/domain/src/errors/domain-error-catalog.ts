import type { Money } from '../values/index.js';

/** What a domain error code says: its title and description (for the docs), and each occurrence's message. */
interface DomainErrorDescription {
  readonly title: string;
  readonly description: string;
  /** The message of one error, from its data. */
  readonly message: (data: never) => string;
}

/**
 * Every domain error code, its documented meaning and its message. The api documents each as a problem type
 * (`/problems/<code>`), with the message as the problem's `detail`, and chooses the status it is answered with.
 */
export const domainErrorCatalog = {
  'invalid-amount': {
    title: 'The amount is not a positive whole number of minor units',
    description:
      'Amounts and prices are integers of the currency’s minor units (cents for EUR): no fractions, no values beyond ' +
      '2^53 − 1. Payments, reservations and invoice totals must be greater than zero; unit prices may be zero.',
    message: (data: { field: string; amount: number }) =>
      `${data.field} must be a positive whole number of minor units, got ${data.amount}`,
  },
  'invalid-quantity': {
    title: 'The quantity is not a valid whole number',
    description:
      'Order and invoice line quantities are positive integers; a counted stock quantity is an integer of zero or more.',
    message: (data: { field: string; quantity: number }) =>
      `${data.field} must be a whole number, got ${data.quantity}`,
  },
  'invalid-currency': {
    title: 'The currency is not an ISO 4217 code',
    description: 'Currencies are ISO 4217 alphabetic codes: three upper-case letters such as EUR or USD.',
    message: (data: { currency: string }) => `${data.currency} is not an ISO 4217 currency code`,
  },
  'currency-mismatch': {
    title: 'The amount is in another currency',
    description:
      'A payment must be in the currency of its invoice, and every line of an order or invoice in the currency of the ' +
      'whole. `data` names the expected and the given currency.',
    message: (data: { expected: string; given: string }) =>
      `expected an amount in ${data.expected}, got ${data.given}`,
  },
  'invoice-not-found': {
    title: 'No such invoice',
    description: 'The invoice was never issued for this tenant, so nothing can be paid on it.',
    message: (data: { invoiceId: string }) => `invoice ${data.invoiceId} does not exist`,
  },
  'invoice-already-issued': {
    title: 'The invoice is already issued',
    description:
      'An invoice with this id exists. Issuing is done once; use a new invoice id for a new invoice.',
    message: (data: { invoiceId: string }) => `invoice ${data.invoiceId} is already issued`,
  },
  'empty-invoice': {
    title: 'The invoice has no lines',
    description: 'An invoice is issued either with at least one line or with a total.',
    message: (data: { invoiceId: string }) => `invoice ${data.invoiceId} has no lines`,
  },
  'payment-exceeds-balance': {
    title: 'The payment exceeds the outstanding balance',
    description:
      'The outstanding balance is the total minus what is paid minus what is held for card payments in progress. ' +
      'A payment or card reservation above it is refused, so an invoice is never overpaid. `data.outstanding` says ' +
      'how much can still be paid.',
    message: (data: { invoiceId: string; amount: Money; outstanding: Money }) =>
      `payment of ${data.amount.amount} exceeds the outstanding ${data.outstanding.amount} ${data.outstanding.currency} on invoice ${data.invoiceId}`,
  },
  'payment-already-recorded': {
    title: 'This payment id is already used on the invoice',
    description:
      'A payment (cash, card, or a card reservation) with this payment id was already recorded. Each payment has its ' +
      'own id; a retry of the same request is answered by its Idempotency-Key instead.',
    message: (data: { invoiceId: string; paymentId: string }) =>
      `payment ${data.paymentId} is already recorded on invoice ${data.invoiceId}`,
  },
  'card-reservation-not-found': {
    title: 'No card reservation for this payment',
    description:
      'A card charge can only be recorded for a payment whose amount was first reserved on the invoice.',
    message: (data: { invoiceId: string; paymentId: string }) =>
      `no card reservation ${data.paymentId} on invoice ${data.invoiceId}`,
  },
  'card-charge-already-recorded': {
    title: 'The card charge already has another outcome',
    description:
      'The gateway outcome for this payment was recorded before, with a different outcome or gateway reference. ' +
      'Repeating the same outcome is accepted and changes nothing.',
    message: (data: { paymentId: string; recorded: string }) =>
      `card payment ${data.paymentId} was already ${data.recorded}`,
  },
  'order-not-found': {
    title: 'No such order',
    description: 'The order was never placed for this tenant.',
    message: (data: { orderId: string }) => `order ${data.orderId} does not exist`,
  },
  'order-already-placed': {
    title: 'The order is already placed',
    description: 'An order with this id exists; placing is done once.',
    message: (data: { orderId: string }) => `order ${data.orderId} is already placed`,
  },
  'empty-order': {
    title: 'The order has no lines',
    description: 'An order needs at least one line (a sku on the menu and a quantity).',
    message: (data: { orderId: string }) => `order ${data.orderId} has no lines`,
  },
  'too-many-order-lines': {
    title: 'The order has too many lines',
    description:
      'An order has at most 200 lines (`data.maxLines`); put more of one item on one line with its quantity, or split ' +
      'the order.',
    message: (data: { orderId: string; lines: number; maxLines: number }) =>
      `order ${data.orderId} has ${data.lines} lines, at most ${data.maxLines} are allowed`,
  },
  'item-not-on-menu': {
    title: 'An ordered item is not on the menu',
    description:
      'Every line is priced by the server from the tenant’s menu when the order arrives. This sku was never on the ' +
      'menu or was withdrawn since (`data.line` is its 0-based place in `lines`), so the order was refused whole and ' +
      'nothing was placed. Read `GET /menu` and make the order again.',
    message: (data: { orderId: string; sku: string; line: number }) =>
      `lines/${data.line}: ${data.sku} is not on the menu, so order ${data.orderId} cannot be priced`,
  },
  'order-awaiting-review': {
    title: 'The order is held for review',
    description:
      'The total the client showed (its expected total) differs from the total at the menu’s prices when the order ' +
      'arrived (a price changed while it waited offline, or the client priced it wrongly), so the order was held ' +
      'rather than silently repriced. It can be served once the server’s total is approved.',
    message: (data: { orderId: string }) => `order ${data.orderId} is held for review`,
  },
  'order-not-held': {
    title: 'The order is not held for review',
    description: 'Only an order held for review can be approved.',
    message: (data: { orderId: string }) => `order ${data.orderId} is not held for review`,
  },
  'order-not-served': {
    title: 'The order has not been served',
    description: 'An order becomes a sale only after it was served.',
    message: (data: { orderId: string }) => `order ${data.orderId} has not been served`,
  },
  'order-already-served': {
    title: 'The order is already served',
    description: 'Serving is done once; the next step is completing the order.',
    message: (data: { orderId: string }) => `order ${data.orderId} is already served`,
  },
  'order-already-completed': {
    title: 'The order is already completed',
    description: 'The order was completed and its sale recorded; a sale is recorded exactly once per order.',
    message: (data: { orderId: string; saleId: string }) =>
      `order ${data.orderId} is already completed (sale ${data.saleId})`,
  },
  'menu-full': {
    title: 'The menu is full',
    description:
      'A menu holds at most 500 items (`data.maxItems`), since every order reads it whole. Withdraw an item ' +
      '(`DELETE /menu/items/:sku`) before adding another; repricing an item on the menu is always possible.',
    message: (data: { sku: string; maxItems: number }) =>
      `the menu already holds ${data.maxItems} items, so ${data.sku} cannot be added`,
  },
  'menu-item-not-found': {
    title: 'The item is not on the menu',
    description: 'The sku was never put on this tenant’s menu, or it was withdrawn already.',
    message: (data: { sku: string }) => `${data.sku} is not on the menu`,
  },
  'stock-count-not-found': {
    title: 'No such stock count',
    description: 'The stock count was never opened for this tenant.',
    message: (data: { stockCountId: string }) => `stock count ${data.stockCountId} does not exist`,
  },
  'stock-count-already-opened': {
    title: 'The stock count is already open',
    description: 'A stock count with this id exists; opening is done once.',
    message: (data: { stockCountId: string }) => `stock count ${data.stockCountId} is already open`,
  },
  'stock-count-already-posted': {
    title: 'The stock count is already posted',
    description: 'A stock count is posted once; after that its lines can no longer change.',
    message: (data: { stockCountId: string }) => `stock count ${data.stockCountId} is already posted`,
  },
  'empty-stock-count': {
    title: 'The stock count has no lines',
    description: 'Record at least one counted line before posting a stock count.',
    message: (data: { stockCountId: string }) => `stock count ${data.stockCountId} has no lines`,
  },
  'stock-count-full': {
    title: 'The stock count holds as much as it may',
    description:
      'A stock count holds at most 500 lines (distinct skus) and takes at most 2,000 recorded lines in all, counting ' +
      'a sku recorded again: post it and open another. `data.limit` is the limit reached, `data.of` which one.',
    message: (data: { stockCountId: string; limit: number; of: 'lines' | 'recordings' }) =>
      data.of === 'lines'
        ? `stock count ${data.stockCountId} already has ${data.limit} lines`
        : `stock count ${data.stockCountId} already took ${data.limit} recorded lines`,
  },
  'webhook-endpoint-not-found': {
    title: 'No such webhook endpoint',
    description: 'The endpoint was never registered for this tenant, or it was deleted.',
    message: (data: { endpointId: string }) => `webhook endpoint ${data.endpointId} does not exist`,
  },
  'webhook-endpoint-already-registered': {
    title: 'The webhook endpoint is already registered',
    description:
      'An endpoint with this id exists. Registering is done once; a new key registers a new endpoint.',
    message: (data: { endpointId: string }) => `webhook endpoint ${data.endpointId} is already registered`,
  },
  'invalid-webhook-event-types': {
    title: 'The event types cannot be subscribed to',
    description:
      'An endpoint subscribes to at least one of the documented event types (`GET /webhook-endpoints/event-types`); ' +
      '`data.unknown` lists the types that are not among them.',
    message: (data: { unknown: readonly string[] }) =>
      data.unknown.length === 0
        ? 'an endpoint subscribes to at least one event type'
        : `unknown event types: ${data.unknown.join(', ')}`,
  },
  'card-settlement-not-found': {
    title: 'No card settlement for this payment',
    description:
      'Only a card payment that was reserved on its invoice has a settlement to record attempts on or resolve.',
    message: (data: { paymentId: string }) => `no card settlement for payment ${data.paymentId}`,
  },
  'card-settlement-already-settled': {
    title: 'The card payment is already settled',
    description:
      'The payment already ended approved or declined, with another outcome or gateway reference than this one. ' +
      'Repeating the same outcome is accepted and changes nothing.',
    message: (data: { paymentId: string; outcome: string }) =>
      `card payment ${data.paymentId} is already settled (${data.outcome})`,
  },
  'card-settlement-not-awaiting-operator': {
    title: 'The card payment does not need attention',
    description:
      'An operator resolves a card payment only once the completer has given up on it (`needs-attention`); until ' +
      'then the completer keeps inquiring and settles it itself.',
    message: (data: { paymentId: string }) =>
      `card payment ${data.paymentId} does not need attention: the completer is still settling it`,
  },
} as const satisfies Record<string, DomainErrorDescription>;

/** Every code a `DomainError` can carry. */
export type DomainErrorCode = keyof typeof domainErrorCatalog;
