import type { IntentKind, IntentRecord } from '../history/index.js';

/**
 * How an intent's effect shows in the log: the event type it appends, and a match key computed the same way from
 * the event's data and from the intent's request (or, for a new stock count, its answer). The workload keeps every
 * intent's match key unique in the run, so a second event with one intent's key is a second effect of that intent.
 */
export interface EffectRule {
  readonly eventType: string;
  eventKey(data: Readonly<Record<string, unknown>>): string;
  /** Undefined when the intent's answer was lost and its effect cannot be named (only a new stock count). */
  intentKey(intent: IntentRecord): string | undefined;
}

const text = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : '';

/** Minor units of a domain `Money` (`{ amount, currency }`) as events carry it. */
export const minorUnits = (money: unknown): number =>
  typeof money === 'object' && money !== null
    ? Number((money as { amount?: unknown }).amount)
    : Number(money);

const firstSku = (lines: unknown): string =>
  Array.isArray(lines) && typeof lines[0] === 'object' && lines[0] !== null
    ? text((lines[0] as { sku?: unknown }).sku)
    : '';

/** The `id` of a 2xx answer's body. */
export const answeredId = (intent: IntentRecord): string | undefined => {
  const body = intent.body;
  if (intent.outcome !== 'succeeded' || typeof body !== 'object' || body === null) return undefined;
  const id = (body as { id?: unknown }).id;
  return typeof id === 'string' ? id : undefined;
};

const payment = (eventType: string): EffectRule => ({
  eventType,
  eventKey: (data) => `${text(data['invoiceId'])}:${String(minorUnits(data['amount']))}`,
  intentKey: ({ target }) => `${target.invoiceId ?? ''}:${String(target.amount ?? '')}`,
});

const byOrder = (eventType: string): EffectRule => ({
  eventType,
  eventKey: (data) => text(data['orderId']),
  intentKey: ({ target }) => target.orderId,
});

export const effectRules: Readonly<Record<IntentKind, EffectRule>> = {
  'issue-invoice': {
    eventType: 'InvoiceIssued',
    eventKey: (data) => text(data['customerRef']),
    intentKey: ({ target }) => target.customerRef,
  },
  'pay-cash': payment('PaymentRecorded'),
  'pay-card': payment('CardPaymentReserved'),
  'set-menu-item': {
    eventType: 'MenuItemAdded',
    eventKey: (data) => text(data['sku']),
    intentKey: ({ target }) => target.sku,
  },
  'withdraw-menu-item': {
    eventType: 'MenuItemWithdrawn',
    eventKey: (data) => text(data['sku']),
    intentKey: ({ target }) => target.sku,
  },
  'place-order': {
    eventType: 'OrderPlaced',
    eventKey: (data) => firstSku(data['lines']),
    intentKey: ({ target }) => target.sku,
  },
  'serve-order': byOrder('OrderServed'),
  'complete-order': byOrder('OrderCompleted'),
  'open-stock-count': {
    eventType: 'StockCountOpened',
    eventKey: (data) => text(data['stockCountId']),
    intentKey: answeredId,
  },
  'record-count-line': {
    eventType: 'StockCountLineRecorded',
    eventKey: (data) => `${text(data['stockCountId'])}:${text(data['sku'])}`,
    intentKey: ({ target }) => `${target.stockCountId ?? ''}:${target.sku ?? ''}`,
  },
  'post-stock-count': {
    eventType: 'StockCountPosted',
    eventKey: (data) => text(data['stockCountId']),
    intentKey: ({ target }) => target.stockCountId,
  },
};
