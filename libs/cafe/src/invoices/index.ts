export { cardPaymentHandler } from './card-payment.handler.js';
export type { CardPaymentDeps } from './card-payment.handler.js';
export { defaultSettlementRetryPolicy } from './card-payment-workflow.js';
export type { CardSettlementDeps } from './card-payment-workflow.js';
export { issueInvoice, payInvoiceByCard, payInvoiceByCash, resolveCardPayment } from './invoice.commands.js';
export { cashPaymentHandler, issueInvoiceHandler } from './invoice.handlers.js';
export {
  cardPaymentBody,
  cashPaymentBody,
  invoiceIdParams,
  invoiceView,
  issueInvoiceBody,
  paymentIdParams,
  paymentNeedingAttentionView,
  paymentsNeedingAttentionList,
  paymentView,
  recordPaymentBody,
  resolvePaymentBody,
} from './invoice.schemas.js';
export type { InvoiceView, PaymentView } from './invoice.schemas.js';
export { toInvoiceView, toPaymentView } from './invoice.view.js';
export { resolveCardPaymentHandler } from './resolve-card-payment.handler.js';
