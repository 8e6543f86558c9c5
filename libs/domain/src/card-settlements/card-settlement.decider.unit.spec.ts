import { describe, expect, it } from 'vitest';
import { asInvoiceId, asPaymentId, asTenantId, money } from '../values/index.js';
import { deciderSpecification } from '../testing/index.js';
import type { SettlementRetryPolicy } from './card-settlement.commands.js';
import { retryDelayMs } from '../card-payments/card-payment.workflow.js';
import { decider } from './card-settlement.decider.js';
import {
  CardSettlementAlreadySettled,
  CardSettlementNotAwaitingOperator,
  CardSettlementNotFound,
} from './card-settlement.errors.js';
import type { CardSettlementEvent } from './card-settlement.events.js';

const given = deciderSpecification(decider);
const paymentId = asPaymentId('pay-1');
const policy: SettlementRetryPolicy = { maxAttempts: 3, baseDelayMs: 5_000, maxDelayMs: 60_000 };
const at = (second: number) => new Date(Date.UTC(2026, 11, 1, 9, 0, second)).toISOString();

const started: CardSettlementEvent = {
  type: 'CardSettlementStarted',
  data: {
    tenantId: asTenantId('tenant-1'),
    invoiceId: asInvoiceId('inv-1'),
    paymentId,
    amount: money(900, 'EUR'),
    policy,
    startedAt: at(0),
  },
};
const failed = (attempt: number, nextAttemptAt?: string): CardSettlementEvent => ({
  type: 'CardSettlementAttemptFailed',
  data: {
    paymentId,
    attempt,
    error: 'timeout',
    attemptedAt: at(attempt),
    ...(nextAttemptAt ? { nextAttemptAt } : {}),
  },
});
const unknownAttempt = (second: number) =>
  ({ type: 'RecordUnknownAttempt', data: { paymentId, error: 'timeout', attemptedAt: at(second) } }) as const;
const declined = { status: 'declined', gatewayReference: 'ch_1', reason: 'insufficient_funds' } as const;
const approved = { status: 'approved', gatewayReference: 'ch_1' } as const;
const needsAttention: CardSettlementEvent = {
  type: 'CardSettlementNeedsAttention',
  data: { paymentId, attempts: 3, lastError: 'timeout', flaggedAt: at(3) },
};

describe('card settlement', () => {
  it('starts once per payment', () => {
    given([])
      .when({ type: 'StartCardSettlement', data: started.data as never })
      .then([started]);
    given([started])
      .when({ type: 'StartCardSettlement', data: started.data as never })
      .then([]);
  });

  it('schedules the next attempt with a doubling, capped pause while attempts remain', () => {
    given([started])
      .when(unknownAttempt(1))
      .then([failed(1, new Date(Date.parse(at(1)) + 5_000).toISOString())]);
    given([started, failed(1, at(6))])
      .when(unknownAttempt(2))
      .then([failed(2, new Date(Date.parse(at(2)) + 10_000).toISOString())]);
    expect([1, 2, 3, 4, 5, 6].map((attempt) => retryDelayMs(policy, attempt))).toEqual([
      5_000, 10_000, 20_000, 40_000, 60_000, 60_000,
    ]);
  });

  it('needs attention after the last attempt, keeping the amount reserved until someone resolves it', () => {
    given([started, failed(1, at(6)), failed(2, at(12))])
      .when(unknownAttempt(3))
      .then([failed(3), needsAttention]);
    // Late failure reports add nothing once a person must look.
    given([started, failed(1, at(6)), failed(2, at(12)), failed(3), needsAttention])
      .when(unknownAttempt(4))
      .then([]);
  });

  it('settles from a definitive gateway answer, a decline included, and accepts the same answer again', () => {
    given([started, failed(1, at(6))])
      .when({ type: 'SettleFromGateway', data: { paymentId, outcome: declined, settledAt: at(7) } })
      .then([
        {
          type: 'CardSettlementSettled',
          data: { paymentId, outcome: declined, by: { kind: 'gateway' }, settledAt: at(7) },
        },
      ]);
    const settled: CardSettlementEvent = {
      type: 'CardSettlementSettled',
      data: { paymentId, outcome: declined, by: { kind: 'gateway' }, settledAt: at(7) },
    };
    given([started, settled])
      .when({ type: 'SettleFromGateway', data: { paymentId, outcome: declined, settledAt: at(9) } })
      .then([]);
    given([started, settled])
      .when({ type: 'SettleFromGateway', data: { paymentId, outcome: approved, settledAt: at(9) } })
      .then(CardSettlementAlreadySettled, { paymentId, outcome: 'declined' });
    // The webhook may still bring the answer after the payment was flagged.
    given([started, failed(1, at(6)), failed(2, at(12)), failed(3), needsAttention])
      .when({ type: 'SettleFromGateway', data: { paymentId, outcome: approved, settledAt: at(30) } })
      .then([
        {
          type: 'CardSettlementSettled',
          data: { paymentId, outcome: approved, by: { kind: 'gateway' }, settledAt: at(30) },
        },
      ]);
  });

  it('lets an operator resolve only a payment that needs attention', () => {
    const resolve = {
      type: 'ResolveByOperator',
      data: {
        paymentId,
        outcome: declined,
        operator: 'key_0123456789ab',
        note: 'gateway has no charge',
        resolvedAt: at(40),
      },
    } as const;
    given([started, failed(1, at(6))])
      .when(resolve)
      .then(CardSettlementNotAwaitingOperator, { paymentId });
    given([started, failed(1, at(6)), failed(2, at(12)), failed(3), needsAttention])
      .when(resolve)
      .then([
        {
          type: 'CardSettlementSettled',
          data: {
            paymentId,
            outcome: declined,
            by: { kind: 'operator', operator: 'key_0123456789ab', note: 'gateway has no charge' },
            settledAt: at(40),
          },
        },
      ]);
  });

  it('records a reported charge of another amount or currency, not applied, and waits for an operator', () => {
    const check = (amount: number, currency: string) =>
      ({
        type: 'CheckGatewayCharge',
        data: { paymentId, gatewayReference: 'ch_1', charged: { amount, currency }, checkedAt: at(8) },
      }) as const;
    const mismatched = (amount: number, currency: string): CardSettlementEvent => ({
      type: 'GatewayChargeMismatched',
      data: {
        paymentId,
        gatewayReference: 'ch_1',
        reserved: money(900, 'EUR'),
        charged: { amount, currency },
        detectedAt: at(8),
      },
    });
    given([started, failed(1, at(6))])
      .when(check(900, 'EUR'))
      .then([]);
    given([started, failed(1, at(6))])
      .when(check(1_900, 'EUR'))
      .then([mismatched(1_900, 'EUR')]);
    given([started])
      .when(check(900, 'USD'))
      .then([mismatched(900, 'USD')]);
    given([]).when(check(900, 'EUR')).then(CardSettlementNotFound, { paymentId });
    const settled: CardSettlementEvent = {
      type: 'CardSettlementSettled',
      data: { paymentId, outcome: approved, by: { kind: 'gateway' }, settledAt: at(7) },
    };
    given([started, settled])
      .when(check(1_900, 'EUR'))
      .then(CardSettlementAlreadySettled, { paymentId, outcome: 'approved' });
    // Flagged: the completer's attempts stop and an operator decides what the payment is.
    given([started, mismatched(1_900, 'EUR')])
      .when(unknownAttempt(9))
      .then([]);
    given([started, mismatched(1_900, 'EUR')])
      .when({
        type: 'ResolveByOperator',
        data: {
          paymentId,
          outcome: declined,
          operator: 'key_0123456789ab',
          note: 'refunded',
          resolvedAt: at(40),
        },
      })
      .then([
        {
          type: 'CardSettlementSettled',
          data: {
            paymentId,
            outcome: declined,
            by: { kind: 'operator', operator: 'key_0123456789ab', note: 'refunded' },
            settledAt: at(40),
          },
        },
      ]);
    const state = [started, mismatched(1_900, 'EUR')].reduce(decider.evolve, decider.initialState());
    expect(state).toMatchObject({
      status: 'needs-attention',
      lastError: 'the gateway charged 1900 EUR (ch_1) for 900 EUR reserved',
    });
  });

  it('refuses attempts and outcomes for a payment that never started settling', () => {
    given([]).when(unknownAttempt(1)).then(CardSettlementNotFound, { paymentId });
    given([])
      .when({ type: 'SettleFromGateway', data: { paymentId, outcome: approved, settledAt: at(1) } })
      .then(CardSettlementNotFound);
  });
});
