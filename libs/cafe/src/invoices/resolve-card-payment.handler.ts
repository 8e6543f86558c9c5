import { asPaymentId, asTenantId, cardSettlementStream, invoiceStream } from '@once/domain';
import type { OperatorResolution, ResolveCardPayment } from '@once/domain/card-payments';
import { invoiceDecider } from '@once/domain/invoices';
import { definePhasedHandler } from '@once/idempotency';
import type { CommandOf, PhasedCommandHandler } from '@once/idempotency';
import { foldSnapshot } from '../commands/aggregate-command.js';
import { domainProblem, problemResponse } from '../problems/index.js';
import type { CardPaymentDeps } from './card-payment.handler.js';
import { decideCardPayment, foldCardPayment, reportedCharge } from './card-payment-workflow.js';
import type { resolveCardPayment } from './invoice.commands.js';
import type { PaymentView } from './invoice.schemas.js';
import { toPaymentView } from './invoice.view.js';

type ResolveCardPaymentCommand = CommandOf<typeof resolveCardPayment>;

/**
 * `POST /payments/:id/resolve` (operators only): settles a card payment that needs attention, as the domain's card
 * payment workflow decides (`ResolveCardPayment`). `inquire` asks the gateway once more (a read, repeated harmlessly
 * on a resume) and hands the workflow what it has; `mark-declined` releases the amount. The settlement and the
 * invoice are written in one planned effect, so the payment ends exactly once.
 */
export const resolveCardPaymentHandler = (
  deps: CardPaymentDeps,
): PhasedCommandHandler<ResolveCardPaymentCommand> =>
  definePhasedHandler<ResolveCardPaymentCommand>({
    run: async (context) => {
      const tenantId = asTenantId(context.scope.tenantId);
      const paymentId = asPaymentId(context.command.paymentId);
      const settlementStream = cardSettlementStream(tenantId, paymentId);
      const resolution: OperatorResolution =
        context.command.action === 'inquire'
          ? { action: 'inquire', charges: (await deps.gateway.inquire(paymentId)).map(reportedCharge) }
          : { action: 'mark-declined' };
      const input: ResolveCardPayment = {
        type: 'ResolveCardPayment',
        data: {
          paymentId,
          resolution,
          operator: context.scope.actorId,
          note: context.command.note,
          resolvedAt: context.requestedAt.toISOString(),
        },
      };
      // The settlement names the invoice; the workflow refuses a payment without one before any invoice is read.
      const current = foldCardPayment(paymentId, [], await deps.readStream(settlementStream));
      if (current.status === 'none') {
        const refused = decideCardPayment(input, current, { status: 'none' });
        if (!refused.ok) return problemResponse(domainProblem(refused.error));
        throw new Error(`the card payment workflow resolved payment ${paymentId}, which has no settlement`);
      }
      const invoiceStreamName = invoiceStream(tenantId, current.reservation.invoiceId);

      const resolved = await context.effect<PaymentView>('payment_resolved', {
        streams: [settlementStream, invoiceStreamName],
        decide: (snapshots) => {
          const invoiceSnapshot = snapshots.get(invoiceStreamName);
          const state = foldCardPayment(
            paymentId,
            invoiceSnapshot?.events ?? [],
            snapshots.get(settlementStream)?.events ?? [],
          );
          const decided = decideCardPayment(input, state, foldSnapshot(invoiceDecider, invoiceSnapshot));
          if (!decided.ok) return { kind: 'reject', response: problemResponse(domainProblem(decided.error)) };
          const { invoice, invoiceEvents, settlementEvents } = decided.value;
          const payment = invoice.status === 'none' ? undefined : invoice.payments.get(paymentId);
          if (invoice.status === 'none' || !payment)
            throw new Error(`payment ${paymentId} is missing from the invoice its settlement names`);
          return {
            kind: 'accept',
            writes: [
              { stream: settlementStream, events: settlementEvents },
              { stream: invoiceStreamName, events: invoiceEvents },
            ].filter((write) => write.events.length > 0),
            result: toPaymentView(invoice, paymentId, payment),
          };
        },
      });
      if (resolved.kind === 'rejected') return resolved.response;
      return { status: 200, body: resolved.result };
    },
  });
