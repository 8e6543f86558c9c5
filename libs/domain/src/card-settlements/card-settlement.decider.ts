import type { Decider } from '../decider/index.js';
import { chargeMismatchReason, retryDelayMs } from '../card-payments/card-payment.workflow.js';
import type { InvoiceId, Money, PaymentId, TenantId, Timestamp } from '../values/index.js';
import type {
  CardSettlementCommand,
  CheckGatewayCharge,
  RecordUnknownAttempt,
  ResolveByOperator,
  SettleFromGateway,
  SettlementOutcome,
  SettlementRetryPolicy,
  StartCardSettlement,
} from './card-settlement.commands.js';
import {
  CardSettlementAlreadySettled,
  CardSettlementNotAwaitingOperator,
  CardSettlementNotFound,
} from './card-settlement.errors.js';
import type { CardSettlementEvent, CardSettlementSettled } from './card-settlement.events.js';

interface Settlement {
  readonly tenantId: TenantId;
  readonly invoiceId: InvoiceId;
  readonly paymentId: PaymentId;
  readonly amount: Money;
  readonly policy: SettlementRetryPolicy;
  readonly attempts: number;
}

/** Where a card payment's settlement stands. */
export type CardSettlementState =
  | { readonly status: 'none' }
  | (Settlement & { readonly status: 'settling'; readonly nextAttemptAt?: Timestamp })
  | (Settlement & { readonly status: 'needs-attention'; readonly lastError: string })
  | (Settlement & { readonly status: 'settled'; readonly outcome: SettlementOutcome });

export const initialState = (): CardSettlementState => ({ status: 'none' });

const started = (state: CardSettlementState, paymentId: PaymentId) => {
  if (state.status === 'none') throw new CardSettlementNotFound({ paymentId });
  return state;
};

const sameOutcome = (a: SettlementOutcome, b: SettlementOutcome): boolean =>
  a.status === b.status && a.gatewayReference === b.gatewayReference;

const start = ({ data }: StartCardSettlement, state: CardSettlementState): readonly CardSettlementEvent[] =>
  state.status === 'none' ? [{ type: 'CardSettlementStarted', data }] : [];

const recordUnknownAttempt = (
  { data }: RecordUnknownAttempt,
  state: CardSettlementState,
): readonly CardSettlementEvent[] => {
  const settlement = started(state, data.paymentId);
  // A late failure report changes nothing once the payment is settled or waits for a person.
  if (settlement.status !== 'settling') return [];
  const attempt = settlement.attempts + 1;
  if (attempt >= settlement.policy.maxAttempts) {
    return [
      {
        type: 'CardSettlementAttemptFailed',
        data: { paymentId: data.paymentId, attempt, error: data.error, attemptedAt: data.attemptedAt },
      },
      {
        type: 'CardSettlementNeedsAttention',
        data: {
          paymentId: data.paymentId,
          attempts: attempt,
          lastError: data.error,
          flaggedAt: data.attemptedAt,
        },
      },
    ];
  }
  const nextAttemptAt = new Date(
    Date.parse(data.attemptedAt) + retryDelayMs(settlement.policy, attempt),
  ).toISOString();
  return [
    {
      type: 'CardSettlementAttemptFailed',
      data: {
        paymentId: data.paymentId,
        attempt,
        error: data.error,
        attemptedAt: data.attemptedAt,
        nextAttemptAt,
      },
    },
  ];
};

const settle = (
  paymentId: PaymentId,
  outcome: SettlementOutcome,
  state: CardSettlementState,
  by: CardSettlementSettled['data']['by'],
  settledAt: Timestamp,
): readonly CardSettlementEvent[] => {
  const settlement = started(state, paymentId);
  if (settlement.status === 'settled') {
    // The same answer again (the webhook after the synchronous answer) is accepted and adds nothing.
    if (sameOutcome(settlement.outcome, outcome)) return [];
    throw new CardSettlementAlreadySettled({ paymentId, outcome: settlement.outcome.status });
  }
  return [{ type: 'CardSettlementSettled', data: { paymentId, outcome, by, settledAt } }];
};

const settleFromGateway = ({ data }: SettleFromGateway, state: CardSettlementState) =>
  settle(data.paymentId, data.outcome, state, { kind: 'gateway' }, data.settledAt);

const resolveByOperator = ({ data }: ResolveByOperator, state: CardSettlementState) => {
  const settlement = started(state, data.paymentId);
  if (settlement.status === 'settling')
    throw new CardSettlementNotAwaitingOperator({ paymentId: data.paymentId });
  return settle(
    data.paymentId,
    data.outcome,
    state,
    { kind: 'operator', operator: data.operator, note: data.note },
    data.resolvedAt,
  );
};

/** A reported charge of another amount or currency than the reservation is recorded and flags the payment. */
const checkGatewayCharge = (
  { data }: CheckGatewayCharge,
  state: CardSettlementState,
): readonly CardSettlementEvent[] => {
  const settlement = started(state, data.paymentId);
  const { amount } = settlement;
  if (data.charged.amount === amount.amount && data.charged.currency === amount.currency) return [];
  // The outcome on record was applied with the reservation's amount; it is not reopened from here.
  if (settlement.status === 'settled')
    throw new CardSettlementAlreadySettled({ paymentId: data.paymentId, outcome: settlement.outcome.status });
  return [
    {
      type: 'GatewayChargeMismatched',
      data: {
        paymentId: data.paymentId,
        gatewayReference: data.gatewayReference,
        reserved: amount,
        charged: { amount: data.charged.amount, currency: data.charged.currency },
        detectedAt: data.checkedAt,
      },
    },
  ];
};

/**
 * Decides a settlement command: every card payment ends approved or declined, by the gateway within the retry
 * policy's attempts, or by an operator once it needs attention. Nothing waits forever. A charge the gateway reports
 * with another amount or currency than the reservation is recorded, not applied, and needs an operator.
 *
 * @example
 * decide({ type: 'RecordUnknownAttempt', data: { paymentId, error: 'timeout', attemptedAt } }, state);
 */
export const decide = (
  command: CardSettlementCommand,
  state: CardSettlementState,
): readonly CardSettlementEvent[] => {
  switch (command.type) {
    case 'StartCardSettlement':
      return start(command, state);
    case 'RecordUnknownAttempt':
      return recordUnknownAttempt(command, state);
    case 'SettleFromGateway':
      return settleFromGateway(command, state);
    case 'ResolveByOperator':
      return resolveByOperator(command, state);
    case 'CheckGatewayCharge':
      return checkGatewayCharge(command, state);
    default: {
      const _exhaustive: never = command;
      return _exhaustive;
    }
  }
};

/** Folds one settlement event into the state. */
export const evolve = (state: CardSettlementState, event: CardSettlementEvent): CardSettlementState => {
  if (event.type === 'CardSettlementStarted') {
    const { tenantId, invoiceId, paymentId, amount, policy } = event.data;
    return { status: 'settling', tenantId, invoiceId, paymentId, amount, policy, attempts: 0 };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'CardSettlementAttemptFailed': {
      const { status: _status, ...settlement } = state;
      const attempts = event.data.attempt;
      return event.data.nextAttemptAt === undefined
        ? { ...settlement, status: 'settling', attempts }
        : { ...settlement, status: 'settling', attempts, nextAttemptAt: event.data.nextAttemptAt };
    }
    case 'CardSettlementNeedsAttention': {
      const { status: _status, ...settlement } = state;
      return { ...settlement, status: 'needs-attention', lastError: event.data.lastError };
    }
    case 'CardSettlementSettled': {
      const { status: _status, ...settlement } = state;
      return { ...settlement, status: 'settled', outcome: event.data.outcome };
    }
    case 'GatewayChargeMismatched': {
      if (state.status === 'settled') return state;
      const { status: _status, ...settlement } = state;
      return { ...settlement, status: 'needs-attention', lastError: chargeMismatchReason(event) };
    }
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
};

/** The card settlement decider: one stream per card payment, from its reservation to its outcome. */
export const decider: Decider<CardSettlementCommand, CardSettlementEvent, CardSettlementState> = {
  decide,
  evolve,
  initialState,
};
