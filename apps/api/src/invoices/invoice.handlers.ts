import { asCustomerRef, asInvoiceId, asPaymentId, asTenantId, invoiceStream, money } from '@once/domain';
import { invoiceDecider } from '@once/domain/invoices';
import type { PaymentId } from '@once/domain';
import type { InvoiceState, IssueInvoice, IssuedInvoice, RecordPayment } from '@once/domain/invoices';
import { definePhasedHandler } from '@once/idempotency';
import type {
  CommandContext,
  CommandOf,
  DecideCommandHandler,
  HandlerResponse,
  PhasedCommandHandler,
} from '@once/idempotency';
import { aggregateCommand, decideOrRefuse, foldSnapshot } from '../commands/aggregate-command.js';
import type { ProcessFaultHook } from '../faults/index.js';
import type { GatewayCharge, GatewayClient } from '../gateway/gateway-client.js';
import { HttpProblem, problemResponse } from '../problems/index.js';
import type { issueInvoice, payInvoiceByCard, payInvoiceByCash } from './invoice.commands.js';
import type { PaymentView } from './invoice.schemas.js';
import { toInvoiceView, toPaymentView } from './invoice.view.js';

const issued = (state: InvoiceState): IssuedInvoice => {
  if (state.status === 'none') throw new Error('the invoice decider accepted a command but left no invoice');
  return state;
};

const tenantOf = (context: CommandContext) => asTenantId(context.scope.tenantId);

const paymentViewOf = (invoice: IssuedInvoice, paymentId: PaymentId): PaymentView => {
  const payment = invoice.payments.get(paymentId);
  if (!payment) throw new Error(`payment ${paymentId} is missing from the invoice it was just recorded on`);
  return toPaymentView(invoice, paymentId, payment);
};

const paymentResponse = (invoice: IssuedInvoice, paymentId: PaymentId): HandlerResponse => ({
  status: 201,
  headers: { location: `/payments/${paymentId}` },
  body: paymentViewOf(invoice, paymentId),
});

/** `POST /invoices`: issues an invoice whose id is derived from the key, so a replay names the same invoice. */
export const issueInvoiceHandler: DecideCommandHandler<CommandOf<typeof issueInvoice>> = aggregateCommand({
  decider: invoiceDecider,
  stream: (context) => invoiceStream(tenantOf(context), asInvoiceId(context.ids.next('invoice'))),
  command: (context) => {
    const body = context.command;
    const base = {
      tenantId: tenantOf(context),
      invoiceId: asInvoiceId(context.ids.next('invoice')),
      customerRef: asCustomerRef(body.customerRef),
      currency: body.currency,
      issuedAt: context.requestedAt.toISOString(),
    };
    const command: IssueInvoice = {
      type: 'IssueInvoice',
      data: 'lines' in body ? { ...base, lines: body.lines } : { ...base, total: body.total },
    };
    return command;
  },
  respond: (context, state) => {
    const invoice = issued(state);
    return {
      status: 201,
      headers: { location: `/invoices/${invoice.invoiceId}` },
      body: toInvoiceView(invoice),
    };
  },
});

/** `POST /invoices/:id/payments` with `method: cash`: one atomic decision against the balance. */
export const cashPaymentHandler: DecideCommandHandler<CommandOf<typeof payInvoiceByCash>> = aggregateCommand({
  decider: invoiceDecider,
  stream: (context) => invoiceStream(tenantOf(context), asInvoiceId(context.command.invoiceId)),
  command: (context) => {
    const { invoiceId, amount, currency } = context.command;
    const command: RecordPayment = {
      type: 'RecordPayment',
      data: {
        invoiceId: asInvoiceId(invoiceId),
        paymentId: asPaymentId(context.ids.next('payment')),
        amount: money(amount, currency),
        method: 'cash',
        recordedAt: context.requestedAt.toISOString(),
      },
    };
    return command;
  },
  respond: (context, state) => paymentResponse(issued(state), asPaymentId(context.ids.next('payment'))),
});

/** What the charge step records: enough to record the outcome on the invoice after a resume. */
interface ChargeResult {
  readonly gatewayReference: string;
  readonly status: 'succeeded' | 'declined';
  readonly declineCode: string | null;
}

const toChargeResult = (charge: GatewayCharge): ChargeResult => ({
  gatewayReference: charge.id,
  status: charge.status,
  declineCode: charge.declineCode ?? null,
});

/**
 * `POST /invoices/:id/payments` with `method: card` (docs/ARCHITECTURE.md "The phased protocol"): reserve the
 * amount on the invoice, charge the gateway with the downstream key `payment:<paymentId>`, record the outcome. Each step is a
 * recovery point in the key log; a resume at `charge_requested` asks the gateway's inquiry first and charges again
 * (same downstream key) only if the gateway never saw the charge.
 */
export const cardPaymentHandler = (deps: {
  gateway: GatewayClient;
  faultPoint: ProcessFaultHook;
}): PhasedCommandHandler<CommandOf<typeof payInvoiceByCard>> =>
  definePhasedHandler<CommandOf<typeof payInvoiceByCard>>({
    run: async (context) => {
      const body = context.command;
      const invoiceId = asInvoiceId(body.invoiceId);
      const paymentId = asPaymentId(context.ids.next('payment'));
      const stream = invoiceStream(tenantOf(context), invoiceId);
      const at = context.requestedAt.toISOString();

      const reserved = await context.effect<null>('payment_reserved', {
        streams: [stream],
        decide: (snapshots) => {
          const state = foldSnapshot(invoiceDecider, snapshots.get(stream));
          const decided = decideOrRefuse(() =>
            invoiceDecider.decide(
              {
                type: 'ReserveCardPayment',
                data: { invoiceId, paymentId, amount: money(body.amount, body.currency), reservedAt: at },
              },
              state,
            ),
          );
          return decided.ok
            ? { kind: 'accept', writes: [{ stream, events: decided.value }], result: null }
            : { kind: 'reject', response: decided.response };
        },
      });
      if (reserved.kind === 'rejected') return reserved.response;

      const charge = await context.step<ChargeResult>('charge_requested', async ({ resumed }) => {
        if (resumed) {
          const [seen] = await deps.gateway.inquire(paymentId);
          if (seen) return toChargeResult(seen);
        }
        const charged = await deps.gateway.charge({
          key: `payment:${paymentId}`,
          reference: paymentId,
          amount: body.amount,
          currency: body.currency,
          cardToken: body.cardToken,
          metadata: { tenantId: context.scope.tenantId, invoiceId },
        });
        deps.faultPoint('after-gateway-charge');
        return toChargeResult(charged);
      });

      const recorded = await context.effect<PaymentView>('charge_recorded', {
        streams: [stream],
        decide: (snapshots) => {
          const state = foldSnapshot(invoiceDecider, snapshots.get(stream));
          const decided = decideOrRefuse(() =>
            invoiceDecider.decide(
              {
                type: 'RecordCardCharge',
                data: {
                  invoiceId,
                  paymentId,
                  gatewayReference: charge.gatewayReference,
                  outcome:
                    charge.status === 'succeeded'
                      ? { status: 'approved' }
                      : { status: 'declined', reason: charge.declineCode ?? 'declined' },
                  recordedAt: at,
                },
              },
              state,
            ),
          );
          if (!decided.ok) return { kind: 'reject', response: decided.response };
          const invoice = issued(decided.value.reduce(invoiceDecider.evolve, state));
          return {
            kind: 'accept',
            writes: [{ stream, events: decided.value }],
            result: paymentViewOf(invoice, paymentId),
          };
        },
      });
      if (recorded.kind === 'rejected') return recorded.response;

      const payment = recorded.result;
      if (charge.status === 'succeeded')
        return { status: 201, headers: { location: `/payments/${paymentId}` }, body: payment };
      return problemResponse(new HttpProblem('card-declined', { extensions: { payment } }));
    },
  });
