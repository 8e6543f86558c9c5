import { asCustomerRef, asInvoiceId, asPaymentId, asTenantId, invoiceStream, money } from '@once/domain';
import { invoiceDecider } from '@once/domain/invoices';
import type { PaymentId } from '@once/domain';
import type { InvoiceState, IssueInvoice, IssuedInvoice, RecordPayment } from '@once/domain/invoices';
import type { CommandContext, CommandOf, DecideCommandHandler, HandlerResponse } from '@once/idempotency';
import { aggregateCommand } from '../commands/aggregate-command.js';
import type { issueInvoice, payInvoiceByCash } from './invoice.commands.js';
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
