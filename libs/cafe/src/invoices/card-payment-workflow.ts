import type { RecordedEvent } from '@once/event-store';
import { DomainError } from '@once/domain';
import type { PaymentId } from '@once/domain';
import { cardPaymentWorkflow } from '@once/domain/card-payments';
import type {
  CardPaymentEvent,
  CardPaymentInput,
  CardPaymentIntent,
  CardPaymentOutput,
  CardPaymentState,
  ReportedCharge,
} from '@once/domain/card-payments';
import type { CardSettlementEvent, SettlementRetryPolicy } from '@once/domain/card-settlements';
import { invoiceDecider } from '@once/domain/invoices';
import type { InvoiceEvent, InvoiceState } from '@once/domain/invoices';
import type { HandlerResponse } from '@once/idempotency';
import type { GatewayCharge } from '../gateway/gateway-client.js';
import { HttpProblem, problemResponse } from '../problems/index.js';

/** What the card handlers need to time a payment's attempts and read its settlement. */
export interface CardSettlementDeps {
  /** Reads a settlement stream as it is now: attempts and their timing are not part of a recorded plan. */
  readonly readStream: (stream: string) => Promise<readonly RecordedEvent[]>;
  readonly retryPolicy: SettlementRetryPolicy;
  /** The clock attempts are timed by (the engine's). */
  readonly now: () => Date;
}

/**
 * Eight attempts, 5 s apart at first and doubling to at most 5 min (the last about 10 minutes after the first; each
 * also at least a lease after the one before), then an operator. A client that retries with its card token is not
 * held back by the pauses.
 */
export const defaultSettlementRetryPolicy: SettlementRetryPolicy = {
  maxAttempts: 8,
  baseDelayMs: 5_000,
  maxDelayMs: 300_000,
};

const paymentEventTypes: ReadonlySet<string> = new Set([
  'CardPaymentReserved',
  'CardPaymentCaptured',
  'CardPaymentDeclined',
]);

const settlementEventTypes: ReadonlySet<string> = new Set([
  'CardSettlementStarted',
  'CardSettlementAttemptFailed',
  'CardSettlementNeedsAttention',
  'CardSettlementSettled',
  'GatewayChargeMismatched',
]);

const isSettlementEvent = (output: CardPaymentOutput): output is CardSettlementEvent =>
  settlementEventTypes.has(output.type);

/**
 * Folds one card payment from its invoice's events (only its own are taken) and its settlement stream's.
 *
 * @example
 * const state = foldCardPayment(paymentId, invoiceEvents, settlementEvents);
 */
export const foldCardPayment = (
  paymentId: PaymentId,
  invoiceEvents: readonly { readonly type: string; readonly data: unknown }[],
  settlementEvents: readonly { readonly type: string; readonly data: unknown }[] = [],
): CardPaymentState => {
  const own = invoiceEvents.filter(
    (event) =>
      paymentEventTypes.has(event.type) && (event.data as { paymentId?: unknown }).paymentId === paymentId,
  );
  return [...own, ...settlementEvents].reduce(
    (state, event) =>
      cardPaymentWorkflow.evolve(state, { type: event.type, data: event.data } as CardPaymentEvent),
    cardPaymentWorkflow.initialState(),
  );
};

/** What the workflow asks of its runner besides invoice commands: a charge, or how to answer the request. */
export type RunnerIntent = Exclude<CardPaymentIntent, { type: 'ReserveCardPayment' | 'RecordCardCharge' }>;

const runnerIntentTypes: ReadonlySet<string> = new Set<RunnerIntent['type']>([
  'ChargeCard',
  'RetryLater',
  'AnswerNeedsAttention',
  'AnswerPayment',
]);

/**
 * The runner's next step among the workflow's outputs: a charge, or how to answer.
 *
 * @example
 * const next = runnerIntentOf(cardPaymentWorkflow.decide(continuePayment, state));
 */
export const runnerIntentOf = (outputs: readonly CardPaymentOutput[]): RunnerIntent | undefined =>
  outputs.find((output): output is RunnerIntent => runnerIntentTypes.has(output.type));

/** The workflow's outputs, carried out against the invoice: the events to append and what is left to do. */
export interface CarriedOut {
  readonly invoiceEvents: readonly InvoiceEvent[];
  readonly settlementEvents: readonly CardSettlementEvent[];
  /** The invoice after its new events. */
  readonly invoice: InvoiceState;
  /** The gateway call or the answer the workflow asks for. */
  readonly intents: readonly Exclude<
    CardPaymentIntent,
    { type: 'ReserveCardPayment' | 'RecordCardCharge' }
  >[];
}

/**
 * Decides `input` with the card payment workflow and carries out its invoice commands with the invoice decider. A
 * rule that forbids it (from either) is a value, for the caller to answer.
 *
 * @example
 * const decided = decideCardPayment(input, foldCardPayment(paymentId, invoiceEvents), invoiceState);
 */
export const decideCardPayment = (
  input: CardPaymentInput,
  state: CardPaymentState,
  invoice: InvoiceState,
):
  { readonly ok: true; readonly value: CarriedOut } | { readonly ok: false; readonly error: DomainError } => {
  try {
    const invoiceEvents: InvoiceEvent[] = [];
    const settlementEvents: CardSettlementEvent[] = [];
    const intents: RunnerIntent[] = [];
    let after = invoice;
    for (const output of cardPaymentWorkflow.decide(input, state)) {
      if (isSettlementEvent(output)) {
        settlementEvents.push(output);
      } else if (output.type === 'ReserveCardPayment' || output.type === 'RecordCardCharge') {
        const events = invoiceDecider.decide(output, after);
        invoiceEvents.push(...events);
        after = events.reduce(invoiceDecider.evolve, after);
      } else {
        intents.push(output);
      }
    }
    return { ok: true, value: { invoiceEvents, settlementEvents, invoice: after, intents } };
  } catch (error) {
    if (error instanceof DomainError) return { ok: false, error };
    throw error;
  }
};

/**
 * A gateway charge as the domain reads it.
 *
 * @example
 * chargeOnRecord((await gateway.inquire(paymentId)).map(reportedCharge));
 */
export const reportedCharge = (charge: GatewayCharge): ReportedCharge => ({
  gatewayReference: charge.id,
  status: charge.status,
  declineCode: charge.declineCode,
  amount: charge.amount,
  currency: charge.currency,
});

/**
 * The stored answer of a card payment that waits for an operator (`payment-needs-attention`): a documented problem,
 * replayed byte for byte; the payment itself ends when an operator resolves it.
 */
export const needsAttentionResponse = (paymentId: string, attempts: number): HandlerResponse =>
  problemResponse(
    new HttpProblem('payment-needs-attention', {
      detail: `the gateway's answer stayed unknown after ${String(attempts)} attempts; an operator resolves the payment`,
      extensions: { paymentId, attempts },
    }),
  );
