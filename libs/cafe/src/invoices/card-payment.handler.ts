import {
  asInvoiceId,
  asPaymentId,
  asTenantId,
  cardSettlementStream,
  invoiceStream,
  money,
} from '@once/domain';
import type { PaymentId, TenantId } from '@once/domain';
import { cardPaymentWorkflow, chargeOnRecord } from '@once/domain/card-payments';
import type {
  CardPaymentInput,
  CardPaymentState,
  ChargeCard,
  GatewayReply,
} from '@once/domain/card-payments';
import { invoiceDecider } from '@once/domain/invoices';
import type { CardPaymentReserved, InvoiceState } from '@once/domain/invoices';
import { definePhasedHandler, isSecretReference } from '@once/idempotency';
import type {
  CommandOf,
  HandlerResponse,
  PhasedCommandContext,
  PhasedCommandHandler,
  StreamSnapshot,
} from '@once/idempotency';
import { foldSnapshot } from '../commands/aggregate-command.js';
import type { ProcessFaultHook } from '../faults/index.js';
import { isUnknownGatewayOutcome } from '../gateway/gateway-client.js';
import type { GatewayClient } from '../gateway/gateway-client.js';
import { domainProblem, HttpProblem, problemResponse } from '../problems/index.js';
import type { CardSettlementDeps, CarriedOut } from './card-payment-workflow.js';
import {
  decideCardPayment,
  foldCardPayment,
  needsAttentionResponse,
  reportedCharge,
  runnerIntentOf,
} from './card-payment-workflow.js';
import type { payInvoiceByCard } from './invoice.commands.js';
import type { PaymentView } from './invoice.schemas.js';
import { toPaymentView } from './invoice.view.js';

type CardPayment = CommandOf<typeof payInvoiceByCard>;

export interface CardPaymentDeps extends CardSettlementDeps {
  readonly gateway: GatewayClient;
  readonly faultPoint: ProcessFaultHook;
}

/** How a run of the payment's key ends: recorded in the effect that decided it, so a resume answers the same. */
type Answer =
  | { readonly kind: 'payment'; readonly payment: PaymentView }
  | { readonly kind: 'needs-attention'; readonly attempts: number }
  | { readonly kind: 'retry-later'; readonly reason: string };

interface Payment {
  readonly context: PhasedCommandContext<CardPayment>;
  readonly tenantId: TenantId;
  readonly paymentId: PaymentId;
  readonly invoice: string;
  readonly settlement: string;
  /** The request itself carries the card token: only then may the gateway be charged. */
  readonly liveToken: boolean;
}

const paymentOfContext = (context: PhasedCommandContext<CardPayment>): Payment => {
  const tenantId = asTenantId(context.scope.tenantId);
  const paymentId = asPaymentId(context.ids.next('payment'));
  return {
    context,
    tenantId,
    paymentId,
    invoice: invoiceStream(tenantId, asInvoiceId(context.command.invoiceId)),
    settlement: cardSettlementStream(tenantId, paymentId),
    liveToken: !isSecretReference(context.command.cardToken),
  };
};

/** What the workflow decided, as the answer to record: a needs-attention, a retry later, or the payment. */
const answerOf = (payment: Payment, carried: CarriedOut): Answer => {
  for (const intent of carried.intents) {
    if (intent.type === 'AnswerNeedsAttention')
      return { kind: 'needs-attention', attempts: intent.data.attempts };
    if (intent.type === 'RetryLater') return { kind: 'retry-later', reason: intent.data.reason };
  }
  const invoice = carried.invoice;
  const recorded = invoice.status === 'none' ? undefined : invoice.payments.get(payment.paymentId);
  if (invoice.status === 'none' || recorded === undefined)
    throw new Error(`payment ${payment.paymentId} is missing from the invoice it was reserved on`);
  return { kind: 'payment', payment: toPaymentView(invoice, payment.paymentId, recorded) };
};

/**
 * An effect that decides `input` against the payment's invoice (and its settlement, when listed), appends what the
 * workflow and the invoice decider decided, and records the answer.
 */
const recordDecision = (
  payment: Payment,
  name: string,
  streams: readonly string[],
  input: CardPaymentInput,
) =>
  payment.context.effect<Answer>(name, {
    streams,
    decide: (snapshots: ReadonlyMap<string, StreamSnapshot>) => {
      const invoiceEvents = snapshots.get(payment.invoice)?.events ?? [];
      const settlementEvents = snapshots.get(payment.settlement)?.events ?? [];
      const state = foldCardPayment(payment.paymentId, invoiceEvents, settlementEvents);
      const invoice = foldSnapshot(invoiceDecider, snapshots.get(payment.invoice));
      const decided = decideCardPayment(input, state, invoice);
      if (!decided.ok) return { kind: 'reject', response: problemResponse(domainProblem(decided.error)) };
      const { invoiceEvents: newInvoiceEvents, settlementEvents: newSettlementEvents } = decided.value;
      return {
        kind: 'accept',
        writes: [
          { stream: payment.invoice, events: newInvoiceEvents },
          { stream: payment.settlement, events: newSettlementEvents },
        ].filter((write) => write.events.length > 0),
        result: answerOf(payment, decided.value),
      };
    },
  });

/**
 * One charge attempt at the gateway, with the downstream key `payment:<paymentId>`. The inquiry comes first when an
 * earlier attempt may have charged (the workflow's `inquireFirst`, or this step resumed after its run stopped). An
 * unknown outcome is a reply too: the client's error becomes a value here, at the gateway's edge.
 */
const askGateway = async (
  deps: CardPaymentDeps,
  payment: Payment,
  { paymentId, amount, inquireFirst, mayCharge }: ChargeCard['data'],
  resumed: boolean,
): Promise<GatewayReply> => {
  try {
    if (inquireFirst || resumed) {
      const seen = chargeOnRecord((await deps.gateway.inquire(paymentId)).map(reportedCharge));
      if (seen) return { kind: 'charged', charge: seen };
    }
    if (!mayCharge) return { kind: 'no-charge' };
    const charged = await deps.gateway.charge({
      key: `payment:${paymentId}`,
      reference: paymentId,
      amount: amount.amount,
      currency: amount.currency,
      cardToken: payment.context.command.cardToken,
      metadata: { tenantId: payment.tenantId, invoiceId: payment.context.command.invoiceId },
    });
    deps.faultPoint('after-gateway-charge');
    return charged.status === 'refused'
      ? { kind: 'refused', code: charged.code }
      : { kind: 'charged', charge: reportedCharge(charged) };
  } catch (error) {
    if (isUnknownGatewayOutcome(error)) return { kind: 'unknown', error: error.message };
    throw error;
  }
};

/** The recovery point of the `attempt`-th charge: each attempt is recorded once in the key log. */
const chargeStep = (attempt: number): string =>
  attempt === 1 ? 'charge_requested' : `charge_requested:${String(attempt)}`;

/**
 * The answer to the request. A payment whose outcome is still unknown answers 503 `gateway-unavailable` by throwing
 * it: that is how the engine keeps the key in flight, for the client's retry or the completer, with the problem's own
 * type.
 */
const respond = (payment: Payment, answer: Answer): HandlerResponse => {
  switch (answer.kind) {
    case 'payment':
      return answer.payment.status === 'captured'
        ? { status: 201, headers: { location: `/payments/${payment.paymentId}` }, body: answer.payment }
        : problemResponse(new HttpProblem('card-declined', { extensions: { payment: answer.payment } }));
    case 'needs-attention':
      return needsAttentionResponse(payment.paymentId, answer.attempts);
    case 'retry-later':
      throw new HttpProblem('gateway-unavailable', { detail: answer.reason });
    default: {
      const _exhaustive: never = answer;
      return _exhaustive;
    }
  }
};

/** Where a resumed payment stands: its reservation, and its settlement as it is now. */
const resumedState = async (
  deps: CardPaymentDeps,
  payment: Payment,
  reserved: CardPaymentReserved,
): Promise<CardPaymentState> =>
  foldCardPayment(payment.paymentId, [reserved], await deps.readStream(payment.settlement));

/**
 * `POST /invoices/:id/payments` with `method: card` (docs/ARCHITECTURE.md "The card payment workflow"): runs the domain's
 * card payment workflow (`@once/domain/card-payments`), which decides every step; this handler carries out what it
 * asks. Effect `payment_reserved` reserves the amount on the invoice; step `charge_requested` (`:<n>` for the n-th
 * attempt) asks the gateway; effect `charge_recorded` (or `charge_unknown:<n>`) records the reply and the answer.
 * Each is a recovery point in the key log. An unknown outcome leaves the key in flight: the client's retry or the
 * completer continues it after the workflow's backoff, until the attempts run out and the key answers
 * `payment-needs-attention`. A charge the gateway answers at once neither reads nor writes the payment's settlement.
 */
export const cardPaymentHandler = (deps: CardPaymentDeps): PhasedCommandHandler<CardPayment> =>
  definePhasedHandler<CardPayment>({
    run: async (context) => {
      const payment = paymentOfContext(context);
      const { paymentId } = payment;
      const body = context.command;
      // Set when this run reserves the amount: a first run, whose payment has no settlement yet.
      let reservedInvoice: InvoiceState | undefined;
      const reserved = await context.effect<CardPaymentReserved>('payment_reserved', {
        streams: [payment.invoice],
        decide: (snapshots) => {
          const invoice = foldSnapshot(invoiceDecider, snapshots.get(payment.invoice));
          const decided = decideCardPayment(
            {
              type: 'PayByCard',
              data: {
                tenantId: payment.tenantId,
                invoiceId: asInvoiceId(body.invoiceId),
                paymentId,
                amount: money(body.amount, body.currency),
                requestedAt: context.requestedAt.toISOString(),
              },
            },
            cardPaymentWorkflow.initialState(),
            invoice,
          );
          if (!decided.ok) return { kind: 'reject', response: problemResponse(domainProblem(decided.error)) };
          const [event] = decided.value.invoiceEvents;
          if (event?.type !== 'CardPaymentReserved')
            throw new Error('the invoice decider reserved a card payment without CardPaymentReserved');
          reservedInvoice = decided.value.invoice;
          return { kind: 'accept', writes: [{ stream: payment.invoice, events: [event] }], result: event };
        },
      });
      if (reserved.kind === 'rejected') return reserved.response;

      // A first run knows the payment has no settlement; a resumed one reads it as it is now.
      const state = reservedInvoice
        ? foldCardPayment(paymentId, [reserved.result])
        : await resumedState(deps, payment, reserved.result);
      const at = deps.now().toISOString();
      const next = runnerIntentOf(
        cardPaymentWorkflow.decide(
          { type: 'ContinueCardPayment', data: { paymentId, liveToken: payment.liveToken, at } },
          state,
        ),
      );
      switch (next?.type) {
        case 'AnswerNeedsAttention':
          return needsAttentionResponse(paymentId, next.data.attempts);
        case 'RetryLater':
          return respond(payment, { kind: 'retry-later', reason: next.data.reason });
        case 'AnswerPayment': {
          const answered = await recordDecision(payment, 'charge_recorded', [payment.invoice], {
            type: 'ContinueCardPayment',
            data: { paymentId, liveToken: payment.liveToken, at },
          });
          return answered.kind === 'rejected' ? answered.response : respond(payment, answered.result);
        }
        case 'ChargeCard': {
          const { attempt } = next.data;
          const reply = await context.step<GatewayReply>(chargeStep(attempt), ({ resumed }) =>
            askGateway(deps, payment, next.data, resumed),
          );
          // The reply is timed when it arrived: the backoff before the next attempt counts from there.
          const input: CardPaymentInput = {
            type: 'RecordGatewayReply',
            data: { paymentId, reply, policy: deps.retryPolicy, at: deps.now().toISOString() },
          };
          // The settlement is read when the payment may have one (a resumed run), or when this reply starts it.
          const firstDecision = reservedInvoice && decideCardPayment(input, state, reservedInvoice);
          const streams =
            firstDecision && (!firstDecision.ok || firstDecision.value.settlementEvents.length === 0)
              ? [payment.invoice]
              : [payment.invoice, payment.settlement];
          const definitive = reply.kind === 'charged' || reply.kind === 'refused';
          const recorded = await recordDecision(
            payment,
            definitive ? 'charge_recorded' : `charge_unknown:${String(attempt)}`,
            streams,
            input,
          );
          return recorded.kind === 'rejected' ? recorded.response : respond(payment, recorded.result);
        }
        case undefined:
          throw new Error('the card payment workflow did not say how to continue a reserved payment');
        default: {
          const _exhaustive: never = next;
          return _exhaustive;
        }
      }
    },
  });
