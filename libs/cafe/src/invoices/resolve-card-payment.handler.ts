import { asPaymentId, asTenantId, cardSettlementStream, invoiceStream } from '@once/domain';
import type { PaymentId } from '@once/domain';
import {
  CardSettlementNotAwaitingOperator,
  CardSettlementNotFound,
  cardSettlementDecider,
} from '@once/domain/card-settlements';
import type { SettlementOutcome } from '@once/domain/card-settlements';
import { invoiceDecider } from '@once/domain/invoices';
import { definePhasedHandler } from '@once/idempotency';
import type { CommandOf, PhasedCommandHandler } from '@once/idempotency';
import { decideOrRefuse, foldSnapshot } from '../commands/aggregate-command.js';
import { domainProblem, problemResponse } from '../problems/index.js';
import type { GatewayClient } from '../gateway/gateway-client.js';
import type { CardPaymentDeps } from './card-payment.handler.js';
import { decideSettlement, foldSettlement } from './card-settlement.js';
import type { resolveCardPayment } from './invoice.commands.js';
import type { PaymentView } from './invoice.schemas.js';
import { toPaymentView } from './invoice.view.js';

type ResolveCardPayment = CommandOf<typeof resolveCardPayment>;

/** What the gateway has for the payment: its charge (a success first), or none, which releases the amount. */
const inquiredOutcome = async (gateway: GatewayClient, paymentId: PaymentId): Promise<SettlementOutcome> => {
  const charges = await gateway.inquire(paymentId);
  const charge = charges.find((found) => found.status === 'succeeded') ?? charges[0];
  if (!charge) {
    return { status: 'declined', gatewayReference: `none:${paymentId}`, reason: 'no-charge-at-gateway' };
  }
  return charge.status === 'succeeded'
    ? { status: 'approved', gatewayReference: charge.id }
    : { status: 'declined', gatewayReference: charge.id, reason: charge.declineCode ?? 'declined' };
};

/**
 * `POST /payments/:id/resolve` (operators only): settles a card payment the completer gave up on. `inquire` asks the
 * gateway once more (a read, repeated harmlessly on a resume) and records what it has; `mark-declined` releases the
 * amount. The settlement and the invoice are written in one planned effect, so the payment ends exactly once.
 */
export const resolveCardPaymentHandler = (deps: CardPaymentDeps): PhasedCommandHandler<ResolveCardPayment> =>
  definePhasedHandler<ResolveCardPayment>({
    run: async (context) => {
      const tenantId = asTenantId(context.scope.tenantId);
      const paymentId = asPaymentId(context.command.paymentId);
      const settlementStream = cardSettlementStream(tenantId, paymentId);
      const current = foldSettlement(await deps.readStream(settlementStream));
      if (current.status === 'none')
        return problemResponse(domainProblem(new CardSettlementNotFound({ paymentId })));
      if (current.status === 'settling')
        return problemResponse(domainProblem(new CardSettlementNotAwaitingOperator({ paymentId })));
      const outcome: SettlementOutcome =
        context.command.action === 'inquire'
          ? await inquiredOutcome(deps.gateway, paymentId)
          : {
              status: 'declined',
              gatewayReference: `operator:${paymentId}`,
              reason: 'marked-declined-by-operator',
            };
      const invoiceStreamName = invoiceStream(tenantId, current.invoiceId);
      const resolvedAt = context.requestedAt.toISOString();
      const resolved = await context.effect<PaymentView>('payment_resolved', {
        streams: [settlementStream, invoiceStreamName],
        decide: (snapshots) => {
          const invoiceState = foldSnapshot(invoiceDecider, snapshots.get(invoiceStreamName));
          const decided = decideOrRefuse(() => ({
            settlement: decideSettlement(
              foldSnapshot(cardSettlementDecider, snapshots.get(settlementStream)),
              [
                {
                  type: 'ResolveByOperator',
                  data: {
                    paymentId,
                    outcome,
                    operator: context.scope.actorId,
                    note: context.command.note,
                    resolvedAt,
                  },
                },
              ],
            ).events,
            invoice: invoiceDecider.decide(
              {
                type: 'RecordCardCharge',
                data: {
                  invoiceId: current.invoiceId,
                  paymentId,
                  gatewayReference: outcome.gatewayReference,
                  outcome:
                    outcome.status === 'approved'
                      ? { status: 'approved' }
                      : { status: 'declined', reason: outcome.reason },
                  recordedAt: resolvedAt,
                },
              },
              invoiceState,
            ),
          }));
          if (!decided.ok) return { kind: 'reject', response: decided.response };
          const invoice = decided.value.invoice.reduce(invoiceDecider.evolve, invoiceState);
          const payment = invoice.status === 'none' ? undefined : invoice.payments.get(paymentId);
          if (invoice.status === 'none' || !payment)
            throw new Error(`payment ${paymentId} is missing from the invoice its settlement names`);
          return {
            kind: 'accept',
            writes: [
              { stream: settlementStream, events: decided.value.settlement },
              { stream: invoiceStreamName, events: decided.value.invoice },
            ].filter((write) => write.events.length > 0),
            result: toPaymentView(invoice, paymentId, payment),
          };
        },
      });
      if (resolved.kind === 'rejected') return resolved.response;
      return { status: 200, body: resolved.result };
    },
  });
