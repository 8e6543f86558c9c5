import {
  asInvoiceId,
  asPaymentId,
  asTenantId,
  cardSettlementStream,
  invoiceStream,
  money,
} from '@once/domain';
import type { PaymentId } from '@once/domain';
import { cardSettlementDecider } from '@once/domain/card-settlements';
import type { SettlementOutcome, StartCardSettlement } from '@once/domain/card-settlements';
import { invoiceDecider } from '@once/domain/invoices';
import type { IssuedInvoice } from '@once/domain/invoices';
import { definePhasedHandler, isSecretReference } from '@once/idempotency';
import type { CommandOf, PhasedCommandContext, PhasedCommandHandler } from '@once/idempotency';
import { decideOrRefuse, foldSnapshot } from '../commands/aggregate-command.js';
import type { ProcessFaultHook } from '../faults/index.js';
import { isUnknownGatewayOutcome } from '../gateway/gateway-client.js';
import type { GatewayCharge, GatewayClient, GatewayRefusal } from '../gateway/gateway-client.js';
import { HttpProblem, problemResponse } from '../problems/index.js';
import type { CardSettlementDeps } from './card-settlement.js';
import { decideSettlement, foldSettlement, needsAttentionResponse } from './card-settlement.js';
import type { payInvoiceByCard } from './invoice.commands.js';
import type { PaymentView } from './invoice.schemas.js';
import { toPaymentView } from './invoice.view.js';

type CardPayment = CommandOf<typeof payInvoiceByCard>;

/** What the charge step records: enough to record the outcome on the invoice after a resume. */
interface ChargeResult {
  readonly gatewayReference: string;
  readonly status: 'succeeded' | 'declined';
  readonly declineCode: string | null;
  /**
   * The step ran again after an earlier run had started it. Only then can the payment have a settlement: an attempt
   * whose outcome stayed unknown starts it and leaves the step started, so every later run resumes the step.
   */
  readonly resumed: boolean;
}

const toChargeResult = (
  charge: GatewayCharge | GatewayRefusal,
  paymentId: PaymentId,
  resumed: boolean,
): ChargeResult =>
  charge.status === 'refused'
    ? // A refusal creates no charge: the payment's own id is the only reference there is.
      { gatewayReference: `refused:${paymentId}`, status: 'declined', declineCode: charge.code, resumed }
    : {
        gatewayReference: charge.id,
        status: charge.status,
        declineCode: charge.declineCode ?? null,
        resumed,
      };

/** A resumed attempt came before the settlement's backoff ended: not an attempt, the key stays in flight. */
class AttemptNotDue extends Error {
  constructor(readonly due: string) {
    super(`the next attempt to settle this payment is due at ${due}`);
  }
}

/** The settlement was flagged for an operator (or resolved by one) before this run: answer that. */
class AwaitingOperator extends Error {
  constructor(readonly attempts: number) {
    super('the card payment waits for an operator');
  }
}

const paymentOf = (invoice: IssuedInvoice, paymentId: PaymentId): PaymentView => {
  const payment = invoice.payments.get(paymentId);
  if (!payment) throw new Error(`payment ${paymentId} is missing from the invoice it was just recorded on`);
  return toPaymentView(invoice, paymentId, payment);
};

export interface CardPaymentDeps extends CardSettlementDeps {
  readonly gateway: GatewayClient;
  readonly faultPoint: ProcessFaultHook;
}

interface Payment {
  readonly context: PhasedCommandContext<CardPayment>;
  readonly paymentId: PaymentId;
  readonly invoice: string;
  readonly settlement: string;
  readonly start: StartCardSettlement;
}

const paymentOfContext = (context: PhasedCommandContext<CardPayment>, deps: CardPaymentDeps): Payment => {
  const body = context.command;
  const tenantId = asTenantId(context.scope.tenantId);
  const invoiceId = asInvoiceId(body.invoiceId);
  const paymentId = asPaymentId(context.ids.next('payment'));
  return {
    context,
    paymentId,
    invoice: invoiceStream(tenantId, invoiceId),
    settlement: cardSettlementStream(tenantId, paymentId),
    start: {
      type: 'StartCardSettlement',
      data: {
        tenantId,
        invoiceId,
        paymentId,
        amount: money(body.amount, body.currency),
        policy: deps.retryPolicy,
        startedAt: context.requestedAt.toISOString(),
      },
    },
  };
};

/**
 * The charge, at most once per recorded outcome. A resumed attempt asks the gateway's inquiry first (the completer's
 * only after the settlement's backoff); it charges (same downstream key) only if the gateway never saw the charge
 * and the card token came with a live request: the key log keeps only a reference, so a resume without the client
 * never charges.
 */
const chargeOnce = (payment: Payment, deps: CardPaymentDeps) =>
  payment.context.step<ChargeResult>('charge_requested', async ({ resumed }) => {
    const { context, paymentId } = payment;
    const body = context.command;
    const liveToken = !isSecretReference(body.cardToken);
    if (resumed) {
      const settlement = foldSettlement(await deps.readStream(payment.settlement));
      if (settlement.status === 'needs-attention' || settlement.status === 'settled')
        throw new AwaitingOperator(settlement.attempts);
      // The backoff paces the completer; the client's own retry (with the token) may try at its own pace.
      const due = settlement.status === 'settling' && !liveToken ? settlement.nextAttemptAt : undefined;
      if (due !== undefined && deps.now().getTime() < Date.parse(due)) throw new AttemptNotDue(due);
      const [seen] = await deps.gateway.inquire(paymentId);
      if (seen) return toChargeResult(seen, paymentId, resumed);
    }
    if (!liveToken) {
      throw new HttpProblem('gateway-unavailable', {
        detail:
          'the gateway has no charge for this payment and only the client can charge it again: the card token is not stored',
      });
    }
    const charged = await deps.gateway.charge({
      key: `payment:${paymentId}`,
      reference: paymentId,
      amount: body.amount,
      currency: body.currency,
      cardToken: body.cardToken,
      metadata: { tenantId: context.scope.tenantId, invoiceId: body.invoiceId },
    });
    deps.faultPoint('after-gateway-charge');
    return toChargeResult(charged, paymentId, resumed);
  });

/**
 * Records an attempt whose outcome stayed unknown on the payment's settlement (started by the first such attempt):
 * `needs-attention` once the retry policy's attempts are used up.
 */
const recordUnknownAttempt = async (payment: Payment, deps: CardPaymentDeps, error: HttpProblem) => {
  const before = foldSettlement(await deps.readStream(payment.settlement));
  const attempt = (before.status === 'none' ? 0 : before.attempts) + 1;
  const recorded = await payment.context.effect<{ readonly flagged: boolean; readonly attempts: number }>(
    `charge_unknown:${String(attempt)}`,
    {
      streams: [payment.settlement],
      decide: (snapshots) => {
        const state = foldSnapshot(cardSettlementDecider, snapshots.get(payment.settlement));
        const record = {
          type: 'RecordUnknownAttempt',
          data: { paymentId: payment.paymentId, error: error.message, attemptedAt: deps.now().toISOString() },
        } as const;
        const decided = decideSettlement(state, state.status === 'none' ? [payment.start, record] : [record]);
        const attempts = decided.state.status === 'none' ? 0 : decided.state.attempts;
        return {
          kind: 'accept',
          writes: decided.events.length > 0 ? [{ stream: payment.settlement, events: decided.events }] : [],
          result: { flagged: decided.state.status === 'needs-attention', attempts },
        };
      },
    },
  );
  return recorded.kind === 'applied' ? recorded.result : { flagged: false, attempts: attempt };
};

/**
 * The charge's outcome on the invoice (capture, or decline releasing the amount) and on the settlement if any. A
 * charge the gateway answered on the first run has no settlement, so its stream is neither read nor folded.
 */
const recordCharge = (payment: Payment, charge: ChargeResult, recordedAt: string) => {
  return payment.context.effect<PaymentView>('charge_recorded', {
    streams: charge.resumed ? [payment.invoice, payment.settlement] : [payment.invoice],
    decide: (snapshots) => {
      const { paymentId } = payment;
      const state = foldSnapshot(invoiceDecider, snapshots.get(payment.invoice));
      const outcome: SettlementOutcome =
        charge.status === 'succeeded'
          ? { status: 'approved', gatewayReference: charge.gatewayReference }
          : {
              status: 'declined',
              gatewayReference: charge.gatewayReference,
              reason: charge.declineCode ?? 'declined',
            };
      const decided = decideOrRefuse(() => {
        const invoiceEvents = invoiceDecider.decide(
          {
            type: 'RecordCardCharge',
            data: {
              invoiceId: payment.start.data.invoiceId,
              paymentId,
              gatewayReference: charge.gatewayReference,
              outcome:
                outcome.status === 'approved'
                  ? { status: 'approved' }
                  : { status: 'declined', reason: outcome.reason },
              recordedAt,
            },
          },
          state,
        );
        const settlement = charge.resumed
          ? foldSnapshot(cardSettlementDecider, snapshots.get(payment.settlement))
          : undefined;
        const settlementEvents =
          settlement === undefined || settlement.status === 'none'
            ? []
            : decideSettlement(settlement, [
                { type: 'SettleFromGateway', data: { paymentId, outcome, settledAt: recordedAt } },
              ]).events;
        return { invoiceEvents, settlementEvents };
      });
      if (!decided.ok) return { kind: 'reject', response: decided.response };
      const { invoiceEvents, settlementEvents } = decided.value;
      const invoice = invoiceEvents.reduce(invoiceDecider.evolve, state);
      if (invoice.status === 'none') throw new Error('the invoice decider recorded a charge on no invoice');
      return {
        kind: 'accept',
        writes: [
          { stream: payment.invoice, events: invoiceEvents },
          ...(settlementEvents.length > 0 ? [{ stream: payment.settlement, events: settlementEvents }] : []),
        ],
        result: paymentOf(invoice, paymentId),
      };
    },
  });
};

/**
 * `POST /invoices/:id/payments` with `method: card` (docs/ARCHITECTURE.md "The phased protocol"): reserve the amount
 * on the invoice, charge the gateway with the downstream key `payment:<paymentId>`, record the outcome. Each step is
 * a recovery point in the key log. A definitive answer (approved, declined, a 4xx refusal of the card) is recorded
 * and stored; an unknown one is an attempt on the payment's settlement, retried by the completer after a backoff
 * until the retry policy's attempts run out, and then the key answers `payment-needs-attention` and an operator
 * resolves the payment. Nothing waits forever.
 */
export const cardPaymentHandler = (deps: CardPaymentDeps): PhasedCommandHandler<CardPayment> =>
  definePhasedHandler<CardPayment>({
    run: async (context) => {
      const payment = paymentOfContext(context, deps);
      const at = context.requestedAt.toISOString();
      const reserved = await context.effect<null>('payment_reserved', {
        streams: [payment.invoice],
        decide: (snapshots) => {
          const state = foldSnapshot(invoiceDecider, snapshots.get(payment.invoice));
          const { invoiceId, paymentId, amount } = payment.start.data;
          const decided = decideOrRefuse(() =>
            invoiceDecider.decide(
              { type: 'ReserveCardPayment', data: { invoiceId, paymentId, amount, reservedAt: at } },
              state,
            ),
          );
          return decided.ok
            ? { kind: 'accept', writes: [{ stream: payment.invoice, events: decided.value }], result: null }
            : { kind: 'reject', response: decided.response };
        },
      });
      if (reserved.kind === 'rejected') return reserved.response;

      let charge: ChargeResult;
      try {
        charge = await chargeOnce(payment, deps);
      } catch (error) {
        if (error instanceof AwaitingOperator)
          return needsAttentionResponse(payment.paymentId, error.attempts);
        if (error instanceof AttemptNotDue)
          throw new HttpProblem('gateway-unavailable', { detail: error.message });
        if (!isUnknownGatewayOutcome(error)) throw error;
        const { flagged, attempts } = await recordUnknownAttempt(payment, deps, error);
        if (flagged) return needsAttentionResponse(payment.paymentId, attempts);
        throw error;
      }

      const recorded = await recordCharge(payment, charge, at);
      if (recorded.kind === 'rejected') return recorded.response;
      const view = recorded.result;
      return charge.status === 'succeeded'
        ? { status: 201, headers: { location: `/payments/${payment.paymentId}` }, body: view }
        : problemResponse(new HttpProblem('card-declined', { extensions: { payment: view } }));
    },
  });
