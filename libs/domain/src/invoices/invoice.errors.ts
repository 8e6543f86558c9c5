import { DomainError } from '../errors/index.js';
import type { InvoiceId, Money, PaymentId } from '../shared/index.js';

export class InvoiceNotFound extends DomainError<'invoice-not-found', { invoiceId: InvoiceId }> {
  constructor(data: { invoiceId: InvoiceId }, options?: ErrorOptions) {
    super('invoice-not-found', data, `invoice ${data.invoiceId} does not exist`, options);
  }
}

export class InvoiceAlreadyIssued extends DomainError<'invoice-already-issued', { invoiceId: InvoiceId }> {
  constructor(data: { invoiceId: InvoiceId }, options?: ErrorOptions) {
    super('invoice-already-issued', data, `invoice ${data.invoiceId} is already issued`, options);
  }
}

export class EmptyInvoice extends DomainError<'empty-invoice', { invoiceId: InvoiceId }> {
  constructor(data: { invoiceId: InvoiceId }, options?: ErrorOptions) {
    super('empty-invoice', data, `invoice ${data.invoiceId} has no lines`, options);
  }
}

export class PaymentExceedsBalance extends DomainError<
  'payment-exceeds-balance',
  { invoiceId: InvoiceId; paymentId: PaymentId; amount: Money; outstanding: Money }
> {
  constructor(
    data: { invoiceId: InvoiceId; paymentId: PaymentId; amount: Money; outstanding: Money },
    options?: ErrorOptions,
  ) {
    super(
      'payment-exceeds-balance',
      data,
      `payment of ${data.amount.amount} exceeds the outstanding ${data.outstanding.amount} ${data.outstanding.currency} on invoice ${data.invoiceId}`,
      options,
    );
  }
}

export class PaymentAlreadyRecorded extends DomainError<
  'payment-already-recorded',
  { invoiceId: InvoiceId; paymentId: PaymentId }
> {
  constructor(data: { invoiceId: InvoiceId; paymentId: PaymentId }, options?: ErrorOptions) {
    super(
      'payment-already-recorded',
      data,
      `payment ${data.paymentId} is already recorded on invoice ${data.invoiceId}`,
      options,
    );
  }
}

export class CardReservationNotFound extends DomainError<
  'card-reservation-not-found',
  { invoiceId: InvoiceId; paymentId: PaymentId }
> {
  constructor(data: { invoiceId: InvoiceId; paymentId: PaymentId }, options?: ErrorOptions) {
    super(
      'card-reservation-not-found',
      data,
      `no card reservation ${data.paymentId} on invoice ${data.invoiceId}`,
      options,
    );
  }
}

export class CardChargeAlreadyRecorded extends DomainError<
  'card-charge-already-recorded',
  { invoiceId: InvoiceId; paymentId: PaymentId; recorded: 'captured' | 'declined'; gatewayReference: string }
> {
  constructor(
    data: {
      invoiceId: InvoiceId;
      paymentId: PaymentId;
      recorded: 'captured' | 'declined';
      gatewayReference: string;
    },
    options?: ErrorOptions,
  ) {
    super(
      'card-charge-already-recorded',
      data,
      `card payment ${data.paymentId} was already ${data.recorded}`,
      options,
    );
  }
}
