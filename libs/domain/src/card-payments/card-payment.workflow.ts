import type { Decider } from '../decider/index.js';
import {
  CardSettlementAlreadySettled,
  CardSettlementNotAwaitingOperator,
  CardSettlementNotFound,
} from '../card-settlements/index.js';
import type {
  CardSettlementEvent,
  CardSettlementSettled,
  ChargedAmount,
  GatewayChargeMismatched,
  SettlementOutcome,
  SettlementRetryPolicy,
} from '../card-settlements/index.js';
import { CardChargeAlreadyRecorded, CardReservationNotFound } from '../invoices/index.js';
import type { CardPaymentCaptured, CardPaymentDeclined, CardPaymentReserved } from '../invoices/index.js';
import type { InvoiceId, Money, PaymentId, TenantId, Timestamp } from '../values/index.js';
import type {
  CardPaymentInput,
  CardPaymentIntent,
  ContinueCardPayment,
  OperatorResolution,
  PayByCard,
  ReceiveGatewayCharge,
  RecordGatewayReply,
  ReportedCharge,
  ResolveCardPayment,
} from './card-payment.inputs.js';

/** The amount held on the invoice for this payment. */
interface Reservation {
  readonly tenantId: TenantId;
  readonly invoiceId: InvoiceId;
  readonly paymentId: PaymentId;
  readonly amount: Money;
}

/** The payment's settlement stream, once an unknown outcome or a mismatched charge started it. */
interface Settlement {
  readonly policy: SettlementRetryPolicy;
  readonly attempts: number;
  readonly nextAttemptAt?: Timestamp;
}

/** A charge of another amount or currency than the reservation, as the gateway reported it. */
interface Mismatch {
  readonly gatewayReference: string;
  readonly charged: ChargedAmount;
}

interface Reserved {
  readonly reservation: Reservation;
  readonly settlement?: Settlement;
}

/** Where one card payment stands: the fold of its invoice events and of its settlement stream. */
export type CardPaymentState =
  | { readonly status: 'none' }
  | (Reserved & { readonly status: 'charging' })
  | (Reserved & {
      readonly status: 'needs-attention';
      readonly lastError: string;
      readonly mismatch?: Mismatch;
    })
  | (Reserved & { readonly status: 'settled'; readonly outcome: SettlementOutcome });

/** The events a card payment is folded from: its own on the invoice, and its settlement stream. */
export type CardPaymentEvent =
  CardPaymentReserved | CardPaymentCaptured | CardPaymentDeclined | CardSettlementEvent;

/** What `decide` returns: settlement events to append, and intents for the runner. */
export type CardPaymentOutput = CardSettlementEvent | CardPaymentIntent;

type Started = Exclude<CardPaymentState, { readonly status: 'none' }>;

export const initialState = (): CardPaymentState => ({ status: 'none' });

const NO_CHARGE_WITHOUT_TOKEN =
  'the gateway has no charge for this payment and only the client can charge it again: the card token is not stored';

/**
 * The pause after the `attempt`-th failed attempt: `baseDelayMs` doubled per earlier failure, at most `maxDelayMs`.
 *
 * @example
 * retryDelayMs({ maxAttempts: 6, baseDelayMs: 5_000, maxDelayMs: 300_000 }, 3); // 20_000
 */
export const retryDelayMs = (policy: SettlementRetryPolicy, attempt: number): number =>
  Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));

/**
 * Why a mismatched charge needs an operator, in the words the console shows.
 *
 * @example
 * chargeMismatchReason(mismatched); // 'the gateway charged 1900 EUR (ch_1) for 900 EUR reserved'
 */
export const chargeMismatchReason = ({ data }: GatewayChargeMismatched): string =>
  `the gateway charged ${String(data.charged.amount)} ${data.charged.currency} (${data.gatewayReference}) ` +
  `for ${String(data.reserved.amount)} ${data.reserved.currency} reserved`;

/**
 * The charge the gateway has on record for a payment, among those its inquiry lists: a success first.
 *
 * @example
 * chargeOnRecord(await inquiry(paymentId)); // undefined when the gateway never saw the charge
 */
export const chargeOnRecord = (charges: readonly ReportedCharge[]): ReportedCharge | undefined =>
  charges.find((charge) => charge.status === 'succeeded') ?? charges[0];

/** What a charge means, whichever path brought it (the gateway's answer, its inquiry, its webhook, an operator). */
const outcomeOfCharge = (charge: ReportedCharge): SettlementOutcome =>
  charge.status === 'succeeded'
    ? { status: 'approved', gatewayReference: charge.gatewayReference }
    : {
        status: 'declined',
        gatewayReference: charge.gatewayReference,
        reason: charge.declineCode ?? 'declined',
      };

const sameOutcome = (a: SettlementOutcome, b: SettlementOutcome): boolean =>
  a.status === b.status && a.gatewayReference === b.gatewayReference;

const attemptsOf = (state: Started): number => state.settlement?.attempts ?? 0;

const started = (state: CardPaymentState, paymentId: PaymentId): Started => {
  if (state.status === 'none') throw new CardSettlementNotFound({ paymentId });
  return state;
};

/** The settlement's first event, when this is the first thing the payment's settlement records. */
const startSettlement = (
  state: Started,
  policy: SettlementRetryPolicy,
  at: Timestamp,
): readonly CardSettlementEvent[] =>
  state.settlement === undefined
    ? [{ type: 'CardSettlementStarted', data: { ...state.reservation, policy, startedAt: at } }]
    : [];

/** The outcome on the invoice (captured, or declined releasing the amount) and on the settlement if it has one. */
const settle = (
  state: Started,
  outcome: SettlementOutcome,
  by: CardSettlementSettled['data']['by'],
  at: Timestamp,
): readonly CardPaymentOutput[] => {
  const { invoiceId, paymentId } = state.reservation;
  return [
    {
      type: 'RecordCardCharge',
      data: {
        invoiceId,
        paymentId,
        gatewayReference: outcome.gatewayReference,
        outcome:
          outcome.status === 'approved'
            ? { status: 'approved' }
            : { status: 'declined', reason: outcome.reason },
        recordedAt: at,
      },
    },
    ...(state.settlement === undefined
      ? []
      : [{ type: 'CardSettlementSettled', data: { paymentId, outcome, by, settledAt: at } } as const]),
  ];
};

/** A definitive outcome from the gateway: recorded once; the same one again adds nothing, another is refused. */
const settleFromGateway = (
  state: Started,
  outcome: SettlementOutcome,
  at: Timestamp,
): readonly CardPaymentOutput[] => {
  if (state.status !== 'settled') return settle(state, outcome, { kind: 'gateway' }, at);
  if (sameOutcome(state.outcome, outcome)) return [];
  throw new CardChargeAlreadyRecorded({
    invoiceId: state.reservation.invoiceId,
    paymentId: state.reservation.paymentId,
    recorded: state.outcome.status === 'approved' ? 'captured' : 'declined',
    gatewayReference: state.outcome.gatewayReference,
  });
};

/**
 * A charge the gateway reports: applied when its amount and currency are the reservation's; otherwise recorded as
 * `GatewayChargeMismatched`, not applied, and the payment needs an operator.
 */
const reportCharge = (
  state: Started,
  charge: ReportedCharge,
  policy: SettlementRetryPolicy,
  at: Timestamp,
): readonly CardPaymentOutput[] => {
  const { amount, paymentId } = state.reservation;
  if (charge.amount === amount.amount && charge.currency === amount.currency)
    return settleFromGateway(state, outcomeOfCharge(charge), at);
  // The outcome on record was applied with the reservation's amount; it is not reopened from here.
  if (state.status === 'settled')
    throw new CardSettlementAlreadySettled({ paymentId, outcome: state.outcome.status });
  const charged = { amount: charge.amount, currency: charge.currency };
  const known = state.status === 'needs-attention' ? state.mismatch : undefined;
  if (
    known?.gatewayReference === charge.gatewayReference &&
    known.charged.amount === charged.amount &&
    known.charged.currency === charged.currency
  )
    return [];
  return [
    ...startSettlement(state, policy, at),
    {
      type: 'GatewayChargeMismatched',
      data: {
        paymentId,
        gatewayReference: charge.gatewayReference,
        reserved: amount,
        charged,
        detectedAt: at,
      },
    },
  ];
};

/** An attempt whose outcome stayed unknown: retried after a pause, until the policy's attempts run out. */
const recordUnknownAttempt = (
  state: Started,
  policy: SettlementRetryPolicy,
  error: string,
  at: Timestamp,
): readonly CardPaymentOutput[] => {
  const { paymentId } = state.reservation;
  // A late failure report changes nothing once the payment has its outcome or waits for a person.
  if (state.status === 'settled') return [{ type: 'AnswerPayment', data: { paymentId } }];
  if (state.status === 'needs-attention')
    return [{ type: 'AnswerNeedsAttention', data: { paymentId, attempts: attemptsOf(state) } }];
  const start = startSettlement(state, policy, at);
  const settlementPolicy = state.settlement?.policy ?? policy;
  const attempt = attemptsOf(state) + 1;
  const failed = { paymentId, attempt, error, attemptedAt: at };
  if (attempt >= settlementPolicy.maxAttempts) {
    return [
      ...start,
      { type: 'CardSettlementAttemptFailed', data: failed },
      {
        type: 'CardSettlementNeedsAttention',
        data: { paymentId, attempts: attempt, lastError: error, flaggedAt: at },
      },
      { type: 'AnswerNeedsAttention', data: { paymentId, attempts: attempt } },
    ];
  }
  const nextAttemptAt = new Date(Date.parse(at) + retryDelayMs(settlementPolicy, attempt)).toISOString();
  return [
    ...start,
    { type: 'CardSettlementAttemptFailed', data: { ...failed, nextAttemptAt } },
    { type: 'RetryLater', data: { paymentId, due: nextAttemptAt, reason: error } },
  ];
};

/** How the request path answers after the outputs: needs attention, or the payment as the invoice records it. */
const withAnswer = (state: Started, outputs: readonly CardPaymentOutput[]): readonly CardPaymentOutput[] => {
  const { paymentId } = state.reservation;
  const after = outputs.reduce(evolve, state);
  return after.status === 'needs-attention'
    ? [...outputs, { type: 'AnswerNeedsAttention', data: { paymentId, attempts: attemptsOf(after) } }]
    : [...outputs, { type: 'AnswerPayment', data: { paymentId } }];
};

const payByCard = ({ data }: PayByCard, state: CardPaymentState): readonly CardPaymentOutput[] => {
  if (state.status !== 'none') return [];
  const { invoiceId, paymentId, amount, requestedAt } = data;
  return [{ type: 'ReserveCardPayment', data: { invoiceId, paymentId, amount, reservedAt: requestedAt } }];
};

/**
 * The next step of a reserved payment: answer what is known, wait for the backoff (unless the client itself retries
 * with its card token), or charge, asking the gateway's inquiry first once an attempt may have charged.
 */
const continuePayment = (
  { data }: ContinueCardPayment,
  state: CardPaymentState,
): readonly CardPaymentOutput[] => {
  const payment = started(state, data.paymentId);
  const { paymentId, amount } = payment.reservation;
  if (payment.status === 'settled') return [{ type: 'AnswerPayment', data: { paymentId } }];
  if (payment.status === 'needs-attention')
    return [{ type: 'AnswerNeedsAttention', data: { paymentId, attempts: attemptsOf(payment) } }];
  const due = payment.settlement?.nextAttemptAt;
  if (!data.liveToken && due !== undefined && Date.parse(data.at) < Date.parse(due))
    return [
      {
        type: 'RetryLater',
        data: { paymentId, due, reason: `the next attempt to settle this payment is due at ${due}` },
      },
    ];
  const attempts = attemptsOf(payment);
  return [
    {
      type: 'ChargeCard',
      data: {
        paymentId,
        attempt: attempts + 1,
        amount,
        inquireFirst: attempts > 0,
        mayCharge: data.liveToken,
      },
    },
  ];
};

const recordGatewayReply = (
  { data }: RecordGatewayReply,
  state: CardPaymentState,
): readonly CardPaymentOutput[] => {
  const payment = started(state, data.paymentId);
  const { reply, policy, at } = data;
  switch (reply.kind) {
    case 'charged':
      return withAnswer(payment, reportCharge(payment, reply.charge, policy, at));
    case 'refused':
      // A refusal creates no charge: the payment's own id is the only reference there is.
      return withAnswer(
        payment,
        settleFromGateway(
          payment,
          { status: 'declined', gatewayReference: `refused:${data.paymentId}`, reason: reply.code },
          at,
        ),
      );
    case 'no-charge':
      return recordUnknownAttempt(payment, policy, NO_CHARGE_WITHOUT_TOKEN, at);
    case 'unknown':
      return recordUnknownAttempt(payment, policy, reply.error, at);
    default: {
      const _exhaustive: never = reply;
      return _exhaustive;
    }
  }
};

const receiveGatewayCharge = (
  { data }: ReceiveGatewayCharge,
  state: CardPaymentState,
): readonly CardPaymentOutput[] => {
  if (state.status === 'none')
    throw new CardReservationNotFound({ invoiceId: data.invoiceId, paymentId: data.paymentId });
  return reportCharge(state, data.charge, data.policy, data.at);
};

const operatorOutcome = (paymentId: PaymentId, resolution: OperatorResolution): SettlementOutcome => {
  if (resolution.action === 'mark-declined')
    return {
      status: 'declined',
      gatewayReference: `operator:${paymentId}`,
      reason: 'marked-declined-by-operator',
    };
  const charge = chargeOnRecord(resolution.charges);
  return charge === undefined
    ? { status: 'declined', gatewayReference: `none:${paymentId}`, reason: 'no-charge-at-gateway' }
    : outcomeOfCharge(charge);
};

const resolveByOperator = (
  { data }: ResolveCardPayment,
  state: CardPaymentState,
): readonly CardPaymentOutput[] => {
  const { paymentId } = data;
  if (state.status === 'none' || state.settlement === undefined)
    throw new CardSettlementNotFound({ paymentId });
  if (state.status === 'charging') throw new CardSettlementNotAwaitingOperator({ paymentId });
  const outcome = operatorOutcome(paymentId, data.resolution);
  if (state.status === 'settled') {
    if (sameOutcome(state.outcome, outcome)) return [];
    throw new CardSettlementAlreadySettled({ paymentId, outcome: state.outcome.status });
  }
  return settle(
    state,
    outcome,
    { kind: 'operator', operator: data.operator, note: data.note },
    data.resolvedAt,
  );
};

/**
 * Decides what a card payment does next. Reserve the amount on the invoice, charge the gateway, record the outcome:
 * a definitive answer (approved, declined, a refusal of the card), from the gateway's answer, its inquiry or its
 * webhook, settles the payment once; an unknown one is an attempt, retried after a doubling pause until the retry
 * policy's attempts run out, and then the payment needs an operator, who resolves it. A charge reported with another
 * amount or currency than the reservation is recorded, not applied, and needs an operator too. Nothing waits for ever.
 *
 * @param input - what happened or was asked: `PayByCard`, `ContinueCardPayment`, `RecordGatewayReply`,
 *   `ReceiveGatewayCharge` (the webhook) or `ResolveCardPayment` (the operator).
 * @param state - the fold of the payment's invoice events and settlement stream.
 * @returns settlement events to append, and intents: invoice commands, a charge, and how to answer the request.
 * @example
 * decide({ type: 'RecordGatewayReply', data: { paymentId, reply: { kind: 'unknown', error: 'timeout' }, policy, at } }, state);
 */
export const decide = (input: CardPaymentInput, state: CardPaymentState): readonly CardPaymentOutput[] => {
  switch (input.type) {
    case 'PayByCard':
      return payByCard(input, state);
    case 'ContinueCardPayment':
      return continuePayment(input, state);
    case 'RecordGatewayReply':
      return recordGatewayReply(input, state);
    case 'ReceiveGatewayCharge':
      return receiveGatewayCharge(input, state);
    case 'ResolveCardPayment':
      return resolveByOperator(input, state);
    default: {
      const _exhaustive: never = input;
      return _exhaustive;
    }
  }
};

const reservationOf = ({ data }: { readonly data: Reservation }): Reservation => ({
  tenantId: data.tenantId,
  invoiceId: data.invoiceId,
  paymentId: data.paymentId,
  amount: data.amount,
});

const settled = (
  state: CardPaymentState,
  reservation: Reservation,
  outcome: SettlementOutcome,
): CardPaymentState => {
  if (state.status === 'none') return { status: 'settled', reservation, outcome };
  const { reservation: kept, settlement } = state;
  return settlement === undefined
    ? { status: 'settled', reservation: kept, outcome }
    : { status: 'settled', reservation: kept, settlement, outcome };
};

/**
 * Folds one of the payment's events (its invoice events or its settlement stream, in either order) into its state;
 * an intent changes nothing. Once settled, a payment stays settled.
 *
 * @example const state = [...invoiceEventsOfPayment, ...settlementEvents].reduce(evolve, initialState());
 */
export const evolve = (
  state: CardPaymentState,
  message: CardPaymentEvent | CardPaymentIntent,
): CardPaymentState => {
  switch (message.type) {
    case 'CardPaymentReserved':
      return state.status === 'none' ? { status: 'charging', reservation: reservationOf(message) } : state;
    case 'CardPaymentCaptured':
      return settled(state, reservationOf(message), {
        status: 'approved',
        gatewayReference: message.data.gatewayReference,
      });
    case 'CardPaymentDeclined':
      return settled(state, reservationOf(message), {
        status: 'declined',
        gatewayReference: message.data.gatewayReference,
        reason: message.data.reason,
      });
    case 'CardSettlementStarted': {
      const settlement = { policy: message.data.policy, attempts: 0 };
      return state.status === 'none'
        ? { status: 'charging', reservation: reservationOf(message), settlement }
        : { ...state, settlement };
    }
    case 'CardSettlementAttemptFailed': {
      if (state.status === 'none' || state.settlement === undefined) return state;
      const { nextAttemptAt: _previous, ...settlement } = state.settlement;
      const { attempt, nextAttemptAt } = message.data;
      return {
        ...state,
        settlement:
          nextAttemptAt === undefined
            ? { ...settlement, attempts: attempt }
            : { ...settlement, attempts: attempt, nextAttemptAt },
      };
    }
    case 'CardSettlementNeedsAttention':
      if (state.status === 'none' || state.status === 'settled') return state;
      return { ...withoutStatus(state), status: 'needs-attention', lastError: message.data.lastError };
    case 'GatewayChargeMismatched': {
      if (state.status === 'none' || state.status === 'settled') return state;
      const { gatewayReference, charged } = message.data;
      return {
        ...withoutStatus(state),
        status: 'needs-attention',
        lastError: chargeMismatchReason(message),
        mismatch: { gatewayReference, charged },
      };
    }
    case 'CardSettlementSettled':
      return state.status === 'none' ? state : settled(state, state.reservation, message.data.outcome);
    case 'ReserveCardPayment':
    case 'RecordCardCharge':
    case 'ChargeCard':
    case 'RetryLater':
    case 'AnswerNeedsAttention':
    case 'AnswerPayment':
      return state;
    default: {
      const _exhaustive: never = message;
      return _exhaustive;
    }
  }
};

const withoutStatus = (state: Started): Reserved =>
  state.settlement === undefined
    ? { reservation: state.reservation }
    : { reservation: state.reservation, settlement: state.settlement };

/** The card payment as one workflow: `decide`, `evolve` and `initialState`, pure, one payment at a time. */
export const workflow = {
  decide,
  evolve,
  initialState,
} satisfies Decider<CardPaymentInput, CardPaymentEvent | CardPaymentIntent, CardPaymentState>;
