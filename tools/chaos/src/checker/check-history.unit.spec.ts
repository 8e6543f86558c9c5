import { describe, expect, it } from 'vitest';
import type { AttemptRecord, HistoryRecord, IntentRecord } from '../history/index.js';
import { checkHistory, tallyEffects } from './check-history.js';
import type { LoggedEvent, SystemFacts } from './system-facts.js';
import type { InvariantName } from './verdict.js';

const invoiceId = '00000000-0000-4000-8000-000000000001';
const paymentId = '00000000-0000-4000-8000-0000000000p1';

/** Money as the domain's events carry it. */
const eur = (amount: number) => ({ amount, currency: 'EUR' });

const intent = (
  fields: Partial<IntentRecord> & Pick<IntentRecord, 'intent' | 'kind' | 'key'>,
): IntentRecord => ({
  type: 'intent',
  copies: 1,
  target: {},
  outcome: 'succeeded',
  status: 201,
  startedAt: 0,
  endedAt: 1,
  ...fields,
});

const attempt = (key: string, status: AttemptRecord['status'], bodyHash?: string): AttemptRecord => ({
  type: 'attempt',
  intent: key,
  key,
  attempt: 1,
  sentAt: 0,
  receivedAt: 1,
  status,
  ...(bodyHash === undefined ? {} : { bodyHash }),
});

/** A clean small run: an invoice of 500 paid 300 by card and 200 cash, an order placed, served and completed. */
const cleanRun = (): { records: HistoryRecord[]; facts: SystemFacts } => {
  const records: HistoryRecord[] = [
    intent({
      intent: 'i1',
      kind: 'issue-invoice',
      key: 'k1',
      target: { customerRef: 'c1' },
      body: { id: invoiceId },
    }),
    intent({
      intent: 'i2',
      kind: 'pay-card',
      key: 'k2',
      target: { invoiceId, amount: 300 },
      body: { id: paymentId, status: 'captured' },
    }),
    intent({
      intent: 'i3',
      kind: 'pay-cash',
      key: 'k3',
      target: { invoiceId, amount: 200 },
      body: { id: 'p2', status: 'recorded' },
    }),
    intent({ intent: 'i4', kind: 'place-order', key: 'k4', target: { sku: 'sku-i4' }, body: { id: 'o1' } }),
    intent({ intent: 'i5', kind: 'serve-order', key: 'k5', target: { orderId: 'o1' }, body: { id: 'o1' } }),
    intent({
      intent: 'i6',
      kind: 'complete-order',
      key: 'k6',
      target: { orderId: 'o1' },
      body: { id: 'o1' },
    }),
    ...['k1', 'k2', 'k3', 'k4', 'k5', 'k6'].map((key) => attempt(key, 201, `hash-${key}`)),
    attempt('k2', 'network'),
    attempt('k2', 201, 'hash-k2'),
  ];
  const events: LoggedEvent[] = [
    { stream: 'invoice-1', type: 'InvoiceIssued', data: { invoiceId, customerRef: 'c1' } },
    { stream: 'invoice-1', type: 'CardPaymentReserved', data: { invoiceId, paymentId, amount: eur(300) } },
    { stream: 'invoice-1', type: 'CardPaymentCaptured', data: { invoiceId, paymentId, amount: eur(300) } },
    { stream: 'invoice-1', type: 'PaymentRecorded', data: { invoiceId, paymentId: 'p2', amount: eur(200) } },
    { stream: 'order-1', type: 'OrderPlaced', data: { orderId: 'o1', lines: [{ sku: 'sku-i4' }] } },
    { stream: 'order-1', type: 'OrderServed', data: { orderId: 'o1' } },
    { stream: 'order-1', type: 'OrderCompleted', data: { orderId: 'o1', saleId: 's1' } },
    { stream: 'order-1', type: 'SaleRecorded', data: { orderId: 'o1', saleId: 's1' } },
  ];
  return {
    records,
    facts: {
      events,
      gatewayCharges: [{ id: 'ch_1', reference: paymentId, amount: 300, status: 'succeeded' }],
      invoices: [{ id: invoiceId, paid: 500, reserved: 0 }],
      orders: [{ id: 'o1', status: 'completed', saleId: 's1' }],
      keysInFlight: [],
      readModelDifferences: [{ table: 'invoices_v1', missing: 0, extra: 0 }],
    },
  };
};

const failing = (records: HistoryRecord[], facts: SystemFacts): InvariantName[] =>
  checkHistory(records, facts)
    .filter((verdict) => verdict.status === 'fail')
    .map((verdict) => verdict.invariant);

describe('checkHistory', () => {
  it('passes every invariant on a clean history', () => {
    const { records, facts } = cleanRun();
    expect(checkHistory(records, facts).map((verdict) => verdict.status)).toEqual(Array(7).fill('pass'));
  });

  it('fails effects-per-intent on a duplicated effect, and the money invariants it breaks', () => {
    const { records, facts } = cleanRun();
    const events = [
      ...(facts.events ?? []),
      {
        stream: 'invoice-1',
        type: 'PaymentRecorded',
        data: { invoiceId, paymentId: 'p3', amount: eur(200) },
      },
    ];
    const verdicts = checkHistory(records, {
      ...facts,
      events,
      invoices: [{ id: invoiceId, paid: 700, reserved: 0 }],
    });
    expect(verdicts.find((verdict) => verdict.invariant === 'effects-per-intent')?.violations).toEqual([
      'i3 (pay-cash, key k3) took effect 2 times',
    ]);
    expect(failing(records, { ...facts, events })).toEqual(['effects-per-intent', 'invoices-balance']);
  });

  it('fails effects-per-intent on a lost confirmed intent', () => {
    const { records, facts } = cleanRun();
    const events = (facts.events ?? []).filter((event) => event.type !== 'OrderServed');
    const verdicts = checkHistory(records, { ...facts, events });
    expect(failing(records, { ...facts, events })).toEqual(['effects-per-intent']);
    expect(verdicts[0]?.violations).toEqual([
      'i5 (serve-order, key k5) was answered 2xx but has no effect in the log',
    ]);
  });

  it('fails identical-2xx-bodies when one key was answered with two different bodies', () => {
    const { records, facts } = cleanRun();
    expect(failing([...records, attempt('k3', 200, 'another-hash')], facts)).toEqual([
      'identical-2xx-bodies',
    ]);
  });

  it('fails effects-per-intent on an effect no intent asked for', () => {
    const { records, facts } = cleanRun();
    const events = [
      ...(facts.events ?? []),
      { stream: 'order-2', type: 'OrderPlaced', data: { orderId: 'o2', lines: [{ sku: 'stray' }] } },
    ];
    expect(failing(records, { ...facts, events })).toEqual(['effects-per-intent']);
  });

  it('fails the gateway invariant on a second charge of one payment', () => {
    const { records, facts } = cleanRun();
    const gatewayCharges = [
      ...(facts.gatewayCharges ?? []),
      { id: 'ch_2', reference: paymentId, amount: 300, status: 'succeeded' },
    ];
    expect(failing(records, { ...facts, gatewayCharges })).toEqual(['gateway-charges-match-payments']);
  });

  it('fails invoices-balance on a reservation that was never settled', () => {
    const { records, facts } = cleanRun();
    const events = (facts.events ?? []).filter((event) => event.type !== 'CardPaymentCaptured');
    expect(failing(records, { ...facts, events, gatewayCharges: [] })).toContain('invoices-balance');
  });

  it('fails completed-orders-one-sale on a second sale of one order', () => {
    const { records, facts } = cleanRun();
    const events = [
      ...(facts.events ?? []),
      { stream: 'order-1', type: 'SaleRecorded', data: { orderId: 'o1', saleId: 's2' } },
    ];
    expect(failing(records, { ...facts, events })).toEqual(['completed-orders-one-sale']);
  });

  it('fails read-models-equal-fold when a read model differs from the fold, and no-key-in-flight on a stuck key', () => {
    const { records, facts } = cleanRun();
    expect(
      failing(records, {
        ...facts,
        readModelDifferences: [{ table: 'orders_v1', missing: 1, extra: 0 }],
        keysInFlight: ['k9'],
      }),
    ).toEqual(['read-models-equal-fold', 'no-key-in-flight']);
  });

  it('skips what a black-box run cannot observe instead of passing it', () => {
    const { records } = cleanRun();
    const statuses = Object.fromEntries(
      checkHistory(records, {}).map((verdict) => [verdict.invariant, verdict.status]),
    );
    expect(statuses).toMatchObject({
      'effects-per-intent': 'skipped',
      'identical-2xx-bodies': 'pass',
      'gateway-charges-match-payments': 'skipped',
      'read-models-equal-fold': 'skipped',
      'no-key-in-flight': 'pass',
    });
  });
});

describe('tallyEffects', () => {
  it('counts nothing on a clean history', () => {
    const { records, facts } = cleanRun();
    expect(tallyEffects(records, facts)).toEqual({ lost: [], doubled: [], orphaned: [] });
  });

  it('sorts a lost acknowledged effect and a doubled one apart', () => {
    const { records, facts } = cleanRun();
    const events = [
      ...(facts.events ?? []).filter((event) => event.type !== 'OrderServed'),
      {
        stream: 'invoice-1',
        type: 'PaymentRecorded',
        data: { invoiceId, paymentId: 'p3', amount: eur(200) },
      },
    ];
    expect(tallyEffects(records, { ...facts, events })).toEqual({
      lost: ['i5 (serve-order, key k5) was answered 2xx but has no effect in the log'],
      doubled: ['i3 (pay-cash, key k3) took effect 2 times'],
      orphaned: [],
    });
  });

  it('tallies nothing when the log was not observed', () => {
    const { records } = cleanRun();
    expect(tallyEffects(records, {})).toBeUndefined();
  });
});
