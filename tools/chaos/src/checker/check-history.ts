import type { AttemptRecord, HistoryRecord, IntentRecord } from '../history/index.js';
import { answeredId, effectRules, minorUnits } from './effect-rules.js';
import type { LoggedEvent, SystemFacts } from './system-facts.js';
import { skipped, verdictOf } from './verdict.js';
import type { Verdict } from './verdict.js';

const isSuccess = (status: AttemptRecord['status']): boolean =>
  typeof status === 'number' && status >= 200 && status < 300;

const countBy = <T>(items: readonly T[], keyOf: (item: T) => string): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(keyOf(item), (counts.get(keyOf(item)) ?? 0) + 1);
  return counts;
};

const eventsOfType = (events: readonly LoggedEvent[], type: string): LoggedEvent[] =>
  events.filter((event) => event.type === type);

const text = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : '';

const label = (intent: IntentRecord): string => `${intent.intent} (${intent.kind}, key ${intent.key})`;

/** How the log's effects compare with the intents: lost (a 2xx without an effect), doubled, and orphaned effects. */
export interface EffectTally {
  /** Intents answered 2xx whose effect is not in the log: an acknowledged effect lost. */
  readonly lost: readonly string[];
  /** Intents whose effect the log holds more than once. */
  readonly doubled: readonly string[];
  /** Effects in the log that no intent asked for. */
  readonly orphaned: readonly string[];
}

const tallyIntentEffects = (
  intents: readonly IntentRecord[],
  succeededKeys: ReadonlySet<string>,
  events: readonly LoggedEvent[],
): EffectTally => {
  const lost: string[] = [];
  const doubled: string[] = [];
  const orphaned: string[] = [];
  const eventCounts = new Map<string, Map<string, number>>();
  const countsOf = (type: string, eventKey: (data: LoggedEvent['data']) => string) => {
    let counts = eventCounts.get(type);
    if (counts === undefined) {
      counts = countBy(eventsOfType(events, type), (event) => eventKey(event.data));
      eventCounts.set(type, counts);
    }
    return counts;
  };
  const attributed = new Map<string, number>();
  const unnameable = new Map<string, number>();
  for (const intent of intents) {
    const rule = effectRules[intent.kind];
    const counts = countsOf(rule.eventType, rule.eventKey);
    const key = rule.intentKey(intent);
    if (key === undefined) {
      unnameable.set(rule.eventType, (unnameable.get(rule.eventType) ?? 0) + 1);
      continue;
    }
    const effects = counts.get(key) ?? 0;
    attributed.set(rule.eventType, (attributed.get(rule.eventType) ?? 0) + Math.min(effects, 1));
    if (effects > 1) doubled.push(`${label(intent)} took effect ${String(effects)} times`);
    if (effects === 0 && succeededKeys.has(intent.key)) {
      lost.push(`${label(intent)} was answered 2xx but has no effect in the log`);
    }
  }
  for (const [type, counts] of eventCounts) {
    const total = [...counts.values()].reduce((sum, count) => sum + Math.min(count, 1), 0);
    const orphans = total - (attributed.get(type) ?? 0) - (unnameable.get(type) ?? 0);
    if (orphans > 0) orphaned.push(`${String(orphans)} ${type} event(s) belong to no intent`);
  }
  return { lost, doubled, orphaned };
};

const succeededKeysOf = (attempts: readonly AttemptRecord[]): Set<string> =>
  new Set(attempts.filter((attempt) => isSuccess(attempt.status)).map((attempt) => attempt.key));

/**
 * The effects of a run's intents in the log, sorted into lost, doubled and orphaned; undefined when the log was
 * not observed (a black-box run).
 *
 * @example
 * const tally = tallyEffects(history.records, facts);
 * console.log(`${tally?.lost.length} lost, ${tally?.doubled.length} doubled`);
 */
export const tallyEffects = (
  records: readonly HistoryRecord[],
  facts: SystemFacts,
): EffectTally | undefined => {
  if (facts.events === undefined) return undefined;
  const attempts = records.filter((record): record is AttemptRecord => record.type === 'attempt');
  const intents = records.filter((record): record is IntentRecord => record.type === 'intent');
  return tallyIntentEffects(intents, succeededKeysOf(attempts), facts.events);
};

/** 0 or 1 effect per intent, 1 whenever an attempt got a 2xx, and no effect in the log that no intent asked for. */
const effectsPerIntent = (
  intents: readonly IntentRecord[],
  succeededKeys: ReadonlySet<string>,
  events: readonly LoggedEvent[] | undefined,
): Verdict => {
  if (events === undefined) return skipped('effects-per-intent');
  const { lost, doubled, orphaned } = tallyIntentEffects(intents, succeededKeys, events);
  return verdictOf('effects-per-intent', intents.length, [...doubled, ...lost, ...orphaned]);
};

/** Every 2xx answer of one key carries the same body, byte for byte. */
const identicalBodies = (attempts: readonly AttemptRecord[]): Verdict => {
  const hashesByKey = new Map<string, Set<string>>();
  for (const attempt of attempts) {
    if (!isSuccess(attempt.status) || attempt.bodyHash === undefined) continue;
    const hashes = hashesByKey.get(attempt.key) ?? new Set<string>();
    hashes.add(attempt.bodyHash);
    hashesByKey.set(attempt.key, hashes);
  }
  const violations = [...hashesByKey]
    .filter(([, hashes]) => hashes.size > 1)
    .map(([key, hashes]) => `key ${key} got ${String(hashes.size)} different 2xx bodies`);
  return verdictOf('identical-2xx-bodies', hashesByKey.size, violations);
};

const confirmedStatuses = new Set(['recorded', 'captured']);

const paymentStatus = (intent: IntentRecord): string =>
  typeof intent.body === 'object' && intent.body !== null
    ? text((intent.body as { status?: unknown }).status)
    : '';

/** Each invoice's paid amount is the sum of its confirmed payments (in the read model and in the log); none stays reserved. */
const invoicesBalance = (intents: readonly IntentRecord[], facts: SystemFacts): Verdict => {
  if (facts.invoices === undefined && facts.events === undefined) return skipped('invoices-balance');
  const invoiceIds = intents
    .filter((intent) => intent.kind === 'issue-invoice')
    .map(answeredId)
    .filter((id): id is string => id !== undefined);
  const payments = intents.filter((intent) => intent.kind === 'pay-cash' || intent.kind === 'pay-card');
  const unanswered = new Set(
    payments.filter((intent) => intent.outcome === 'gave-up').map((intent) => intent.target.invoiceId),
  );
  const confirmed = new Map<string, number>();
  for (const intent of payments) {
    if (intent.outcome !== 'succeeded' || !confirmedStatuses.has(paymentStatus(intent))) continue;
    const invoiceId = intent.target.invoiceId ?? '';
    confirmed.set(invoiceId, (confirmed.get(invoiceId) ?? 0) + (intent.target.amount ?? 0));
  }
  const violations: string[] = [];
  const readings = new Map((facts.invoices ?? []).map((invoice) => [invoice.id, invoice]));
  const logged = new Map<string, number>();
  const reservedPayments = new Map<string, string>();
  for (const event of facts.events ?? []) {
    const invoiceId = text(event.data['invoiceId']);
    const paymentId = text(event.data['paymentId']);
    if (event.type === 'PaymentRecorded' || event.type === 'CardPaymentCaptured') {
      logged.set(invoiceId, (logged.get(invoiceId) ?? 0) + minorUnits(event.data['amount']));
    }
    if (event.type === 'CardPaymentReserved') reservedPayments.set(paymentId, invoiceId);
    if (event.type === 'CardPaymentCaptured' || event.type === 'CardPaymentDeclined') {
      reservedPayments.delete(paymentId);
    }
  }
  for (const [paymentId, invoiceId] of reservedPayments) {
    violations.push(`payment ${paymentId} of invoice ${invoiceId} stays reserved in the log`);
  }
  let checked = 0;
  for (const invoiceId of invoiceIds) {
    if (unanswered.has(invoiceId)) continue;
    checked += 1;
    const expected = confirmed.get(invoiceId) ?? 0;
    if (facts.events !== undefined && (logged.get(invoiceId) ?? 0) !== expected) {
      violations.push(
        `invoice ${invoiceId}: the log pays ${String(logged.get(invoiceId) ?? 0)}, confirmed payments sum to ${String(expected)}`,
      );
    }
    if (facts.invoices === undefined) continue;
    const reading = readings.get(invoiceId);
    if (reading === undefined) violations.push(`invoice ${invoiceId} is missing from the read model`);
    else {
      if (reading.paid !== expected) {
        violations.push(
          `invoice ${invoiceId}: the read model shows paid ${String(reading.paid)}, confirmed payments sum to ${String(expected)}`,
        );
      }
      if (reading.reserved !== 0) {
        violations.push(`invoice ${invoiceId} keeps ${String(reading.reserved)} reserved in the read model`);
      }
    }
  }
  return verdictOf('invoices-balance', checked, violations);
};

/** Every gateway charge that succeeded matches exactly one captured payment, and every capture exactly one charge. */
const gatewayChargesMatchPayments = (facts: SystemFacts): Verdict => {
  const { gatewayCharges, events } = facts;
  if (gatewayCharges === undefined || events === undefined) return skipped('gateway-charges-match-payments');
  const violations: string[] = [];
  const succeeded = gatewayCharges.filter((charge) => charge.status === 'succeeded');
  const chargesByReference = new Map<string, number>();
  for (const charge of succeeded) {
    chargesByReference.set(charge.reference, (chargesByReference.get(charge.reference) ?? 0) + 1);
  }
  const captures = new Map<string, LoggedEvent[]>();
  for (const event of eventsOfType(events, 'CardPaymentCaptured')) {
    const paymentId = text(event.data['paymentId']);
    captures.set(paymentId, [...(captures.get(paymentId) ?? []), event]);
  }
  for (const [reference, count] of chargesByReference) {
    if (count > 1) violations.push(`payment ${reference} was charged ${String(count)} times at the gateway`);
  }
  for (const charge of succeeded) {
    const matching = captures.get(charge.reference) ?? [];
    if (matching.length !== 1) {
      violations.push(`charge ${charge.id} matches ${String(matching.length)} captured payments`);
    } else if (minorUnits(matching[0]?.data['amount']) !== charge.amount) {
      violations.push(`charge ${charge.id} of ${String(charge.amount)} captured a different amount`);
    }
  }
  for (const paymentId of captures.keys()) {
    if (!chargesByReference.has(paymentId))
      violations.push(`captured payment ${paymentId} has no gateway charge`);
  }
  return verdictOf('gateway-charges-match-payments', succeeded.length + captures.size, violations);
};

/** Every completed order produced exactly one sale, and every sale belongs to a completed order. */
const completedOrdersOneSale = (intents: readonly IntentRecord[], facts: SystemFacts): Verdict => {
  if (facts.events === undefined && facts.orders === undefined) return skipped('completed-orders-one-sale');
  const violations: string[] = [];
  const completedByClient = intents
    .filter((intent) => intent.kind === 'complete-order' && intent.outcome === 'succeeded')
    .map((intent) => intent.target.orderId ?? '');
  let checked = completedByClient.length;
  if (facts.events !== undefined) {
    const completed = new Set(
      eventsOfType(facts.events, 'OrderCompleted').map((event) => text(event.data['orderId'])),
    );
    const sales = countBy(eventsOfType(facts.events, 'SaleRecorded'), (event) => text(event.data['orderId']));
    checked = Math.max(checked, completed.size);
    for (const orderId of completed) {
      const count = sales.get(orderId) ?? 0;
      if (count !== 1) violations.push(`completed order ${orderId} produced ${String(count)} sales`);
    }
    for (const orderId of sales.keys()) {
      if (!completed.has(orderId)) violations.push(`a sale of order ${orderId}, which never completed`);
    }
    for (const orderId of completedByClient) {
      if (!completed.has(orderId))
        violations.push(`order ${orderId} was answered completed but the log never completed it`);
    }
  }
  if (facts.orders !== undefined) {
    const readings = new Map(facts.orders.map((order) => [order.id, order]));
    for (const orderId of completedByClient) {
      const reading = readings.get(orderId);
      if (reading?.status !== 'completed' || reading.saleId === undefined) {
        violations.push(
          `order ${orderId} was answered completed; the read model shows ${reading?.status ?? 'nothing'}`,
        );
      }
    }
  }
  return verdictOf('completed-orders-one-sale', checked, violations);
};

/** The live read models hold exactly what a fresh fold of the log gives. */
const readModelsEqualFold = (facts: SystemFacts): Verdict => {
  if (facts.readModelDifferences === undefined) return skipped('read-models-equal-fold');
  const violations = facts.readModelDifferences
    .filter((difference) => difference.missing > 0 || difference.extra > 0)
    .map(
      (difference) =>
        `${difference.table}: ${String(difference.missing)} row(s) of the fresh fold missing or different, ${String(difference.extra)} extra`,
    );
  return verdictOf('read-models-equal-fold', facts.readModelDifferences.length, violations);
};

/** Every intent got a definitive answer, and the key table shows no key still in flight. */
const noKeyInFlight = (intents: readonly IntentRecord[], facts: SystemFacts): Verdict => {
  const violations = intents
    .filter((intent) => intent.outcome === 'gave-up')
    .map((intent) => `${label(intent)} never got a definitive answer`);
  for (const key of facts.keysInFlight ?? []) violations.push(`key ${key} is still in flight`);
  return verdictOf('no-key-in-flight', intents.length, violations);
};

/**
 * Checks a run's history against what the system holds afterwards: one verdict per invariant.
 *
 * @example
 * const verdicts = checkHistory(history.records, await collectPostgresFacts(...));
 * const passed = verdicts.every((verdict) => verdict.status !== 'fail');
 */
export const checkHistory = (records: readonly HistoryRecord[], facts: SystemFacts): Verdict[] => {
  const attempts = records.filter((record): record is AttemptRecord => record.type === 'attempt');
  const intents = records.filter((record): record is IntentRecord => record.type === 'intent');
  const succeededKeys = succeededKeysOf(attempts);
  return [
    effectsPerIntent(intents, succeededKeys, facts.events),
    identicalBodies(attempts),
    invoicesBalance(intents, facts),
    gatewayChargesMatchPayments(facts),
    completedOrdersOneSale(intents, facts),
    readModelsEqualFold(facts),
    noKeyInFlight(intents, facts),
  ];
};
