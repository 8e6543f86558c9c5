import type { PaymentId } from '@once/domain';
import type { InvoicePayment, IssuedInvoice } from '@once/domain/invoices';
import type { InvoiceView, PaymentView } from './invoice.schemas.js';

/** One payment as the API shows it. */
export const toPaymentView = (
  invoice: IssuedInvoice,
  paymentId: PaymentId,
  payment: InvoicePayment,
): PaymentView => ({
  id: paymentId,
  invoiceId: invoice.invoiceId,
  status: payment.status,
  method: payment.status === 'recorded' ? payment.method : 'card',
  amount: payment.amount,
  currency: invoice.total.currency,
  ...(payment.status === 'captured' || payment.status === 'declined'
    ? { gatewayReference: payment.gatewayReference }
    : {}),
  ...(payment.status === 'declined' ? { declineReason: payment.reason } : {}),
});

/** An invoice as the API shows it: totals, what is still outstanding, and each payment. */
export const toInvoiceView = (invoice: IssuedInvoice): InvoiceView => {
  const outstanding = invoice.total.amount - invoice.paid - invoice.reserved;
  return {
    id: invoice.invoiceId,
    customerRef: invoice.customerRef,
    currency: invoice.total.currency,
    total: invoice.total.amount,
    paid: invoice.paid,
    reserved: invoice.reserved,
    outstanding,
    status: invoice.paid >= invoice.total.amount ? 'paid' : 'open',
    payments: [...invoice.payments].map(([paymentId, payment]) => toPaymentView(invoice, paymentId, payment)),
  };
};
