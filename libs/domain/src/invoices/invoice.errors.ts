import { domainError } from '../errors/index.js';
import type { InvoiceId, Money, PaymentId } from '../values/index.js';

/** One payment on one invoice. */
interface InvoicePaymentRef {
  readonly invoiceId: InvoiceId;
  readonly paymentId: PaymentId;
}

/** A payment above what is still outstanding. */
interface Overpayment extends InvoicePaymentRef {
  readonly amount: Money;
  readonly outstanding: Money;
}

/** A card charge whose outcome is already recorded. */
interface RecordedCharge extends InvoicePaymentRef {
  readonly recorded: 'captured' | 'declined';
  readonly gatewayReference: string;
}

export class InvoiceNotFound extends domainError('invoice-not-found')<{ invoiceId: InvoiceId }> {}
export class InvoiceAlreadyIssued extends domainError('invoice-already-issued')<{ invoiceId: InvoiceId }> {}
export class EmptyInvoice extends domainError('empty-invoice')<{ invoiceId: InvoiceId }> {}
export class PaymentExceedsBalance extends domainError('payment-exceeds-balance')<Overpayment> {}
export class PaymentAlreadyRecorded extends domainError('payment-already-recorded')<InvoicePaymentRef> {}
export class CardReservationNotFound extends domainError('card-reservation-not-found')<InvoicePaymentRef> {}
export class CardChargeAlreadyRecorded extends domainError('card-charge-already-recorded')<RecordedCharge> {}
