import type { Message } from '../decider/index.js';
import type { CustomerRef, InvoiceId, Money, PaymentId, TenantId, Timestamp } from '../values/index.js';

/** One invoice line; `unitPrice` in minor units of the invoice's currency. */
export interface InvoiceLine {
  readonly description: string;
  readonly quantity: number;
  readonly unitPrice: number;
}

/** An invoice is issued with lines (the total is their sum) or with a bare total. */
export type InvoiceAmount = { readonly lines: readonly InvoiceLine[] } | { readonly total: number };

export type IssueInvoice = Message<
  'IssueInvoice',
  {
    readonly tenantId: TenantId;
    readonly invoiceId: InvoiceId;
    readonly customerRef: CustomerRef;
    readonly currency: string;
    readonly issuedAt: Timestamp;
  } & InvoiceAmount
>;

/** Records a payment already taken: cash at the till, or a card on a standalone terminal (no gateway call). */
export type RecordPayment = Message<
  'RecordPayment',
  {
    readonly invoiceId: InvoiceId;
    readonly paymentId: PaymentId;
    readonly amount: Money;
    readonly method: 'cash' | 'card';
    readonly recordedAt: Timestamp;
  }
>;

/** Holds an amount against the balance before the gateway is asked to charge it. */
export type ReserveCardPayment = Message<
  'ReserveCardPayment',
  {
    readonly invoiceId: InvoiceId;
    readonly paymentId: PaymentId;
    readonly amount: Money;
    readonly reservedAt: Timestamp;
  }
>;

/** What the gateway answered for a charge. */
export type CardChargeOutcome =
  { readonly status: 'approved' } | { readonly status: 'declined'; readonly reason: string };

/** Records the gateway's outcome for a reserved card payment. */
export type RecordCardCharge = Message<
  'RecordCardCharge',
  {
    readonly invoiceId: InvoiceId;
    readonly paymentId: PaymentId;
    readonly gatewayReference: string;
    readonly outcome: CardChargeOutcome;
    readonly recordedAt: Timestamp;
  }
>;

export type InvoiceCommand = IssueInvoice | RecordPayment | ReserveCardPayment | RecordCardCharge;
