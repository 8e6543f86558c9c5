export { decider as invoiceDecider, outstandingBalance } from './invoice.decider.js';
export type { InvoicePayment, InvoiceState, IssuedInvoice } from './invoice.decider.js';
export type {
  CardChargeOutcome,
  InvoiceAmount,
  InvoiceCommand,
  InvoiceLine,
  IssueInvoice,
  RecordCardCharge,
  RecordPayment,
  ReserveCardPayment,
} from './invoice.commands.js';
export type {
  CardPaymentCaptured,
  CardPaymentDeclined,
  InvoiceEvent,
  InvoiceIssued,
  PaymentRecorded,
  CardPaymentReserved,
} from './invoice.events.js';
export {
  CardChargeAlreadyRecorded,
  CardReservationNotFound,
  EmptyInvoice,
  InvoiceAlreadyIssued,
  InvoiceNotFound,
  PaymentAlreadyRecorded,
  PaymentExceedsBalance,
} from './invoice.errors.js';
