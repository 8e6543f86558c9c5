import { domainError } from '../errors/index.js';
import type { InvoiceId, Money, PaymentId } from '../shared/index.js';

export class InvoiceNotFound extends domainError(
  'invoice-not-found',
  (data: { invoiceId: InvoiceId }) => `invoice ${data.invoiceId} does not exist`,
) {}

export class InvoiceAlreadyIssued extends domainError(
  'invoice-already-issued',
  (data: { invoiceId: InvoiceId }) => `invoice ${data.invoiceId} is already issued`,
) {}

export class EmptyInvoice extends domainError(
  'empty-invoice',
  (data: { invoiceId: InvoiceId }) => `invoice ${data.invoiceId} has no lines`,
) {}

export class PaymentExceedsBalance extends domainError(
  'payment-exceeds-balance',
  (data: { invoiceId: InvoiceId; paymentId: PaymentId; amount: Money; outstanding: Money }) =>
    `payment of ${data.amount.amount} exceeds the outstanding ${data.outstanding.amount} ${data.outstanding.currency} on invoice ${data.invoiceId}`,
) {}

export class PaymentAlreadyRecorded extends domainError(
  'payment-already-recorded',
  (data: { invoiceId: InvoiceId; paymentId: PaymentId }) =>
    `payment ${data.paymentId} is already recorded on invoice ${data.invoiceId}`,
) {}

export class CardReservationNotFound extends domainError(
  'card-reservation-not-found',
  (data: { invoiceId: InvoiceId; paymentId: PaymentId }) =>
    `no card reservation ${data.paymentId} on invoice ${data.invoiceId}`,
) {}

export class CardChargeAlreadyRecorded extends domainError(
  'card-charge-already-recorded',
  (data: {
    invoiceId: InvoiceId;
    paymentId: PaymentId;
    recorded: 'captured' | 'declined';
    gatewayReference: string;
  }) => `card payment ${data.paymentId} was already ${data.recorded}`,
) {}
