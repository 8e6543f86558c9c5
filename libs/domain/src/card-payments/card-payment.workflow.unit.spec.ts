import { describe, expect, it } from 'vitest';
import {
  CardSettlementAlreadySettled,
  CardSettlementNotAwaitingOperator,
  CardSettlementNotFound,
} from '../card-settlements/index.js';
import type { CardSettlementEvent, SettlementRetryPolicy } from '../card-settlements/index.js';
import { CardChargeAlreadyRecorded, CardReservationNotFound } from '../invoices/index.js';
import type { CardPaymentCaptured, CardPaymentDeclined, CardPaymentReserved } from '../invoices/index.js';
import { deciderSpecification } from '../testing/index.js';
import { asInvoiceId, asPaymentId, asTenantId, money } from '../values/index.js';
import type {
  CardPaymentInput,
  CardPaymentIntent,
  GatewayReply,
  OperatorResolution,
  ReportedCharge,
} from './card-payment.inputs.js';
import { retryDelayMs, workflow } from './card-payment.workflow.js';
import type { CardPaymentEvent, CardPaymentState } from './card-payment.workflow.js';

// Given the payment's events (on its invoice and its settlement), when an input arrives, then these outputs.
const given = deciderSpecification<CardPaymentInput, CardPaymentEvent | CardPaymentIntent, CardPaymentState>(
  workflow,
);
const tenantId = asTenantId('tenant-1');
const invoiceId = asInvoiceId('inv-1');
const paymentId = asPaymentId('pay-1');
const amount = money(900, 'EUR');
const policy: SettlementRetryPolicy = { maxAttempts: 3, baseDelayMs: 5_000, maxDelayMs: 60_000 };
const at = (second: number) => new Date(Date.UTC(2026, 11, 1, 9, 0, second)).toISOString();
const later = (second: number, ms: number) => new Date(Date.parse(at(second)) + ms).toISOString();

// The payment's own events on the invoice.
const reserved: CardPaymentReserved = {
  type: 'CardPaymentReserved',
  data: { tenantId, invoiceId, paymentId, amount, reservedAt: at(0) },
};
const captured: CardPaymentCaptured = {
  type: 'CardPaymentCaptured',
  data: { tenantId, invoiceId, paymentId, amount, gatewayReference: 'ch_1', capturedAt: at(1) },
};
const declinedOnInvoice: CardPaymentDeclined = {
  type: 'CardPaymentDeclined',
  data: {
    tenantId,
    invoiceId,
    paymentId,
    amount,
    gatewayReference: 'ch_1',
    reason: 'insufficient_funds',
    declinedAt: at(1),
  },
};

// Its settlement stream.
const started = (second = 1): CardSettlementEvent => ({
  type: 'CardSettlementStarted',
  data: { tenantId, invoiceId, paymentId, amount, policy, startedAt: at(second) },
});
const failed = (attempt: number, error = 'timeout', last = false): CardSettlementEvent => ({
  type: 'CardSettlementAttemptFailed',
  data: {
    paymentId,
    attempt,
    error,
    attemptedAt: at(attempt),
    ...(last ? {} : { nextAttemptAt: later(attempt, retryDelayMs(policy, attempt)) }),
  },
});
const needsAttention: CardSettlementEvent = {
  type: 'CardSettlementNeedsAttention',
  data: { paymentId, attempts: 3, lastError: 'timeout', flaggedAt: at(3) },
};
const flagged = [reserved, started(), failed(1), failed(2), failed(3, 'timeout', true), needsAttention];
const settledBy = (
  outcome: Extract<CardSettlementEvent, { type: 'CardSettlementSettled' }>['data']['outcome'],
  second: number,
  by: Extract<CardSettlementEvent, { type: 'CardSettlementSettled' }>['data']['by'] = { kind: 'gateway' },
): CardSettlementEvent => ({
  type: 'CardSettlementSettled',
  data: { paymentId, outcome, by, settledAt: at(second) },
});
const mismatched = (charged: { amount: number; currency: string }, second: number): CardSettlementEvent => ({
  type: 'GatewayChargeMismatched',
  data: { paymentId, gatewayReference: 'ch_1', reserved: amount, charged, detectedAt: at(second) },
});

// What goes in.
const payByCard = {
  type: 'PayByCard',
  data: { tenantId, invoiceId, paymentId, amount, requestedAt: at(0) },
} as const;
const continuePayment = (second: number, liveToken = false) =>
  ({ type: 'ContinueCardPayment', data: { paymentId, liveToken, at: at(second) } }) as const;
const reply = (replied: GatewayReply, second: number) =>
  ({ type: 'RecordGatewayReply', data: { paymentId, reply: replied, policy, at: at(second) } }) as const;
const charge = (overrides: Partial<ReportedCharge> = {}): ReportedCharge => ({
  gatewayReference: 'ch_1',
  status: 'succeeded',
  amount: 900,
  currency: 'EUR',
  ...overrides,
});
const webhook = (reported: ReportedCharge, second: number) =>
  ({
    type: 'ReceiveGatewayCharge',
    data: { invoiceId, paymentId, charge: reported, policy, at: at(second) },
  }) as const;
const resolve = (resolution: OperatorResolution, second = 40) =>
  ({
    type: 'ResolveCardPayment',
    data: { paymentId, resolution, operator: 'key_0123456789ab', note: 'checked', resolvedAt: at(second) },
  }) as const;

// What comes out besides events.
const chargeCard = (attempt: number, inquireFirst: boolean, mayCharge: boolean): CardPaymentIntent => ({
  type: 'ChargeCard',
  data: { paymentId, attempt, amount, inquireFirst, mayCharge },
});
const recordCharge = (
  outcome: { status: 'approved' } | { status: 'declined'; reason: string },
  second: number,
  gatewayReference = 'ch_1',
): CardPaymentIntent => ({
  type: 'RecordCardCharge',
  data: { invoiceId, paymentId, gatewayReference, outcome, recordedAt: at(second) },
});
const answerPayment: CardPaymentIntent = { type: 'AnswerPayment', data: { paymentId } };
const answerNeedsAttention = (attempts: number): CardPaymentIntent => ({
  type: 'AnswerNeedsAttention',
  data: { paymentId, attempts },
});
const retryLater = (due: string, reason: string): CardPaymentIntent => ({
  type: 'RetryLater',
  data: { paymentId, due, reason },
});
const approved = { status: 'approved', gatewayReference: 'ch_1' } as const;

describe('reserving', () => {
  it('reserves the amount on the invoice once', () => {
    given([])
      .when(payByCard)
      .then([{ type: 'ReserveCardPayment', data: { invoiceId, paymentId, amount, reservedAt: at(0) } }]);
    given([reserved]).when(payByCard).then([]);
  });
});

describe('charged at once', () => {
  it('charges a reserved payment, without an inquiry, and only with the card token', () => {
    given([reserved])
      .when(continuePayment(0, true))
      .then([chargeCard(1, false, true)]);
  });

  it('records an approval on the invoice alone (no settlement was started) and answers the payment', () => {
    given([reserved])
      .when(reply({ kind: 'charged', charge: charge() }, 1))
      .then([recordCharge({ status: 'approved' }, 1), answerPayment]);
  });

  it('records a decline with its code, and a refusal of the card under the payment’s own reference', () => {
    given([reserved])
      .when(
        reply({ kind: 'charged', charge: charge({ status: 'declined', declineCode: 'card_declined' }) }, 1),
      )
      .then([recordCharge({ status: 'declined', reason: 'card_declined' }, 1), answerPayment]);
    given([reserved])
      .when(reply({ kind: 'charged', charge: charge({ status: 'declined' }) }, 1))
      .then([recordCharge({ status: 'declined', reason: 'declined' }, 1), answerPayment]);
    given([reserved])
      .when(reply({ kind: 'refused', code: 'card-refused' }, 1))
      .then([
        recordCharge({ status: 'declined', reason: 'card-refused' }, 1, 'refused:pay-1'),
        answerPayment,
      ]);
  });

  it('answers a settled payment from the invoice, and the same answer again adds nothing', () => {
    given([reserved, captured]).when(continuePayment(5)).then([answerPayment]);
    given([reserved, captured])
      .when(reply({ kind: 'charged', charge: charge() }, 2))
      .then([answerPayment]);
    given([reserved, captured])
      .when(reply({ kind: 'charged', charge: charge({ status: 'declined' }) }, 2))
      .then(CardChargeAlreadyRecorded, {
        invoiceId,
        paymentId,
        recorded: 'captured',
        gatewayReference: 'ch_1',
      });
  });
});

describe('an outcome that stays unknown', () => {
  it('starts the settlement with the first unknown attempt and retries after a pause', () => {
    given([reserved])
      .when(reply({ kind: 'unknown', error: 'timeout' }, 1))
      .then([started(), failed(1), retryLater(later(1, 5_000), 'timeout')]);
    given([reserved, started(), failed(1)])
      .when(reply({ kind: 'unknown', error: 'timeout' }, 2))
      .then([failed(2), retryLater(later(2, 10_000), 'timeout')]);
  });

  it('waits for the pause unless the client retries with its card token, and inquires first', () => {
    const due = later(1, 5_000);
    given([reserved, started(), failed(1)])
      .when(continuePayment(3))
      .then([retryLater(due, `the next attempt to settle this payment is due at ${due}`)]);
    given([reserved, started(), failed(1)])
      .when(continuePayment(3, true))
      .then([chargeCard(2, true, true)]);
    given([reserved, started(), failed(1)])
      .when(continuePayment(6))
      .then([chargeCard(2, true, false)]);
  });

  it('settles the payment and its settlement from what the inquiry found', () => {
    given([reserved, started(), failed(1)])
      .when(reply({ kind: 'charged', charge: charge() }, 7))
      .then([recordCharge({ status: 'approved' }, 7), settledBy(approved, 7), answerPayment]);
    given([reserved, started(), failed(1)])
      .when(
        reply({ kind: 'charged', charge: charge({ status: 'declined', declineCode: 'expired_card' }) }, 7),
      )
      .then([
        recordCharge({ status: 'declined', reason: 'expired_card' }, 7),
        settledBy({ status: 'declined', gatewayReference: 'ch_1', reason: 'expired_card' }, 7),
        answerPayment,
      ]);
  });

  it('counts an inquiry that found nothing, without the card token to charge, as an unknown attempt', () => {
    const error =
      'the gateway has no charge for this payment and only the client can charge it again: the card token is not stored';
    given([reserved, started(), failed(1)])
      .when(reply({ kind: 'no-charge' }, 2))
      .then([failed(2, error), retryLater(later(2, 10_000), error)]);
  });

  it('needs attention after the last attempt, keeping the amount reserved, and answers that from then on', () => {
    given([reserved, started(), failed(1), failed(2)])
      .when(reply({ kind: 'unknown', error: 'timeout' }, 3))
      .then([failed(3, 'timeout', true), needsAttention, answerNeedsAttention(3)]);
    given(flagged)
      .when(reply({ kind: 'unknown', error: 'timeout' }, 9))
      .then([answerNeedsAttention(3)]);
    given(flagged)
      .when(continuePayment(9, true))
      .then([answerNeedsAttention(3)]);
  });

  it('answers the payment when its outcome arrived while the attempt was out', () => {
    given([reserved, started(), failed(1), captured, settledBy(approved, 1)])
      .when(reply({ kind: 'unknown', error: 'timeout' }, 9))
      .then([answerPayment]);
  });
});

describe('the operator', () => {
  it('marks a payment that needs attention declined, releasing the amount', () => {
    given(flagged)
      .when(resolve({ action: 'mark-declined' }))
      .then([
        recordCharge({ status: 'declined', reason: 'marked-declined-by-operator' }, 40, 'operator:pay-1'),
        settledBy(
          { status: 'declined', gatewayReference: 'operator:pay-1', reason: 'marked-declined-by-operator' },
          40,
          { kind: 'operator', operator: 'key_0123456789ab', note: 'checked' },
        ),
      ]);
  });

  it('records what the gateway has when asked once more: its success first, or no charge at all', () => {
    const by = { kind: 'operator', operator: 'key_0123456789ab', note: 'checked' } as const;
    given(flagged)
      .when(
        resolve({
          action: 'inquire',
          charges: [charge({ gatewayReference: 'ch_0', status: 'declined' }), charge()],
        }),
      )
      .then([recordCharge({ status: 'approved' }, 40), settledBy(approved, 40, by)]);
    given(flagged)
      .when(resolve({ action: 'inquire', charges: [] }))
      .then([
        recordCharge({ status: 'declined', reason: 'no-charge-at-gateway' }, 40, 'none:pay-1'),
        settledBy(
          { status: 'declined', gatewayReference: 'none:pay-1', reason: 'no-charge-at-gateway' },
          40,
          by,
        ),
      ]);
  });

  it('resolves only a payment that needs attention, and the same resolution twice once', () => {
    given([])
      .when(resolve({ action: 'mark-declined' }))
      .then(CardSettlementNotFound, { paymentId });
    given([reserved, captured])
      .when(resolve({ action: 'mark-declined' }))
      .then(CardSettlementNotFound, { paymentId });
    given([reserved, started(), failed(1)])
      .when(resolve({ action: 'mark-declined' }))
      .then(CardSettlementNotAwaitingOperator, { paymentId });
    const declined = {
      status: 'declined',
      gatewayReference: 'operator:pay-1',
      reason: 'marked-declined-by-operator',
    } as const;
    const resolved = [...flagged, settledBy(declined, 40, { kind: 'operator', operator: 'o', note: 'n' })];
    given(resolved)
      .when(resolve({ action: 'mark-declined' }, 41))
      .then([]);
    given(resolved)
      .when(resolve({ action: 'inquire', charges: [charge()] }, 41))
      .then(CardSettlementAlreadySettled, { paymentId, outcome: 'declined' });
  });
});

describe('the gateway’s webhook', () => {
  it('before the answer: records the charge; the answer that follows adds nothing', () => {
    given([reserved])
      .when(webhook(charge(), 1))
      .then([recordCharge({ status: 'approved' }, 1)]);
    given([reserved, captured])
      .when(reply({ kind: 'charged', charge: charge() }, 2))
      .then([answerPayment]);
  });

  it('after the answer: adds nothing, and another outcome is refused', () => {
    given([reserved, captured]).when(webhook(charge(), 3)).then([]);
    given([reserved, declinedOnInvoice])
      .when(webhook(charge({ status: 'declined', declineCode: 'other words' }), 3))
      .then([]);
    given([reserved, declinedOnInvoice]).when(webhook(charge(), 3)).then(CardChargeAlreadyRecorded, {
      invoiceId,
      paymentId,
      recorded: 'declined',
      gatewayReference: 'ch_1',
    });
  });

  it('instead of the answer: settles the payment and its settlement, and the next run answers it', () => {
    given([reserved, started(), failed(1)])
      .when(webhook(charge(), 4))
      .then([recordCharge({ status: 'approved' }, 4), settledBy(approved, 4)]);
    given([reserved, started(), failed(1), captured, settledBy(approved, 4)])
      .when(continuePayment(9))
      .then([answerPayment]);
    // Even once the payment waits for an operator.
    given(flagged)
      .when(webhook(charge(), 30))
      .then([recordCharge({ status: 'approved' }, 30), settledBy(approved, 30)]);
  });

  it('refuses a charge for a payment never reserved', () => {
    given([]).when(webhook(charge(), 1)).then(CardReservationNotFound, { invoiceId, paymentId });
  });
});

describe('a charge of another amount or currency', () => {
  it('is recorded, not applied, starting the settlement if needed, and the payment waits for an operator', () => {
    given([reserved])
      .when(webhook(charge({ amount: 1_900 }), 8))
      .then([started(8), mismatched({ amount: 1_900, currency: 'EUR' }, 8)]);
    given([reserved, started(), failed(1)])
      .when(webhook(charge({ currency: 'USD' }), 8))
      .then([mismatched({ amount: 900, currency: 'USD' }, 8)]);
    const state = [reserved, started(), mismatched({ amount: 1_900, currency: 'EUR' }, 8)].reduce(
      workflow.evolve,
      workflow.initialState(),
    );
    expect(state).toMatchObject({
      status: 'needs-attention',
      lastError: 'the gateway charged 1900 EUR (ch_1) for 900 EUR reserved',
    });
  });

  it('means the same whichever path brought it: the gateway’s answer is checked too', () => {
    given([reserved])
      .when(reply({ kind: 'charged', charge: charge({ amount: 1_900 }) }, 8))
      .then([started(8), mismatched({ amount: 1_900, currency: 'EUR' }, 8), answerNeedsAttention(0)]);
  });

  it('adds nothing when reported again, records another mismatch, and stops the retries', () => {
    const flaggedByMismatch = [reserved, started(), mismatched({ amount: 1_900, currency: 'EUR' }, 8)];
    given(flaggedByMismatch)
      .when(webhook(charge({ amount: 1_900 }), 9))
      .then([]);
    given(flaggedByMismatch)
      .when(webhook(charge({ currency: 'USD' }), 9))
      .then([mismatched({ amount: 900, currency: 'USD' }, 9)]);
    given(flaggedByMismatch)
      .when(reply({ kind: 'unknown', error: 'timeout' }, 9))
      .then([answerNeedsAttention(0)]);
  });

  it('does not reopen a settled payment', () => {
    given([reserved, captured])
      .when(webhook(charge({ amount: 1_900 }), 9))
      .then(CardSettlementAlreadySettled, { paymentId, outcome: 'approved' });
  });
});

describe('the retry policy', () => {
  it('doubles the pause after each failed attempt, up to its cap', () => {
    expect([1, 2, 3, 4, 5, 6].map((attempt) => retryDelayMs(policy, attempt))).toEqual([
      5_000, 10_000, 20_000, 40_000, 60_000, 60_000,
    ]);
  });
});
