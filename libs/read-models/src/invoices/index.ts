export { invoicesProjection, invoicesTable, paymentsTable } from './invoices.projection.js';
export type { InvoiceRow, PaymentRow } from './invoices.projection.js';
export { getInvoice, getPayment } from './invoices.queries.js';
export type { InvoiceReadModel, PaymentReadModel } from './invoices.queries.js';
