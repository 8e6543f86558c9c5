import type { Message } from '../decider/index.js';
import type { CustomerRef, InvoiceId, Money, PaymentId, TenantId, Timestamp } from '../values/index.js';
import type { InvoiceLine } from './invoice.commands.js';

/** The invoice exists; `lines` is empty when it was issued with a bare total. */
export type InvoiceIssued = Message<
  'InvoiceIssued',
  {
    readonly tenantId: TenantId;
    readonly invoiceId: InvoiceId;
    readonly customerRef: CustomerRef;
    readonly lines: readonly InvoiceLine[];
    readonly total: Money;
    readonly issuedAt: Timestamp;
  }
>;

export type PaymentRecorded = Message<
  'PaymentRecorded',
  {
    readonly tenantId: TenantId;
    readonly invoiceId: InvoiceId;
    readonly paymentId: PaymentId;
    readonly amount: Money;
    readonly method: 'cash' | 'card';
    readonly recordedAt: Timestamp;
  }
>;

/** The amount is held against the balance until the gateway's outcome is recorded. */
export type CardPaymentReserved = Message<
  'CardPaymentReserved',
  {
    readonly tenantId: TenantId;
    readonly invoiceId: InvoiceId;
    readonly paymentId: PaymentId;
    readonly amount: Money;
    readonly reservedAt: Timestamp;
  }
>;

/** The gateway charged the card: the held amount now counts as paid. */
export type CardPaymentCaptured = Message<
  'CardPaymentCaptured',
  {
    readonly tenantId: TenantId;
    readonly invoiceId: InvoiceId;
    readonly paymentId: PaymentId;
    readonly amount: Money;
    readonly gatewayReference: string;
    readonly capturedAt: Timestamp;
  }
>;

/** The gateway declined: the held amount is released. */
export type CardPaymentDeclined = Message<
  'CardPaymentDeclined',
  {
    readonly tenantId: TenantId;
    readonly invoiceId: InvoiceId;
    readonly paymentId: PaymentId;
    readonly amount: Money;
    readonly gatewayReference: string;
    readonly reason: string;
    readonly declinedAt: Timestamp;
  }
>;

export type InvoiceEvent =
  InvoiceIssued | PaymentRecorded | CardPaymentReserved | CardPaymentCaptured | CardPaymentDeclined;
