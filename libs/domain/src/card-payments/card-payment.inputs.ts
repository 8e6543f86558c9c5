import type { Message } from '../decider/index.js';
import type { RecordCardCharge, ReserveCardPayment } from '../invoices/index.js';
import type { InvoiceId, Money, PaymentId, TenantId, Timestamp } from '../values/index.js';
import type { SettlementRetryPolicy } from '../card-settlements/index.js';

/** A charge as the gateway reports it: in its answer, in its inquiry, or in its webhook. */
export interface ReportedCharge {
  readonly gatewayReference: string;
  readonly status: 'succeeded' | 'declined';
  readonly declineCode?: string | undefined;
  readonly amount: number;
  readonly currency: string;
}

/** What one charge attempt learnt from the gateway. */
export type GatewayReply =
  /** The gateway charged (or declined) the card, in its answer or in its inquiry. */
  | { readonly kind: 'charged'; readonly charge: ReportedCharge }
  /** The gateway refused the card outright (a 4xx about the card): no charge exists, and none will. */
  | { readonly kind: 'refused'; readonly code: string }
  /** The inquiry found no charge, and the card token was not there to charge (a resume without the client). */
  | { readonly kind: 'no-charge' }
  /** Nothing is known: a timeout, a 5xx, an answer that does not parse. */
  | { readonly kind: 'unknown'; readonly error: string };

/** A client asks to pay an invoice by card: its amount is reserved on the invoice first. */
export type PayByCard = Message<
  'PayByCard',
  {
    readonly tenantId: TenantId;
    readonly invoiceId: InvoiceId;
    readonly paymentId: PaymentId;
    readonly amount: Money;
    readonly requestedAt: Timestamp;
  }
>;

/**
 * The payment's key runs (a first request, a client's retry, the completer): what is the next thing to do? Only a
 * request that carries the card token itself (`liveToken`) may charge; the key log keeps a reference only.
 */
export type ContinueCardPayment = Message<
  'ContinueCardPayment',
  { readonly paymentId: PaymentId; readonly liveToken: boolean; readonly at: Timestamp }
>;

/** What a charge attempt learnt from the gateway. `policy` paces the retries if it starts the settlement. */
export type RecordGatewayReply = Message<
  'RecordGatewayReply',
  {
    readonly paymentId: PaymentId;
    readonly reply: GatewayReply;
    readonly policy: SettlementRetryPolicy;
    readonly at: Timestamp;
  }
>;

/** The gateway's webhook reported a charge for the payment, whenever it arrives. */
export type ReceiveGatewayCharge = Message<
  'ReceiveGatewayCharge',
  {
    readonly invoiceId: InvoiceId;
    readonly paymentId: PaymentId;
    readonly charge: ReportedCharge;
    readonly policy: SettlementRetryPolicy;
    readonly at: Timestamp;
  }
>;

/** How an operator resolves a payment that needs attention. */
export type OperatorResolution =
  /** Ask the gateway once more: what it has (a success first) is the outcome; nothing at all releases the amount. */
  | { readonly action: 'inquire'; readonly charges: readonly ReportedCharge[] }
  | { readonly action: 'mark-declined' };

/** An operator resolves a payment that needs attention. */
export type ResolveCardPayment = Message<
  'ResolveCardPayment',
  {
    readonly paymentId: PaymentId;
    readonly resolution: OperatorResolution;
    readonly operator: string;
    readonly note: string;
    readonly resolvedAt: Timestamp;
  }
>;

export type CardPaymentInput =
  PayByCard | ContinueCardPayment | RecordGatewayReply | ReceiveGatewayCharge | ResolveCardPayment;

/**
 * Charge the card with the downstream key `payment:<paymentId>`. When `inquireFirst` (an earlier attempt may have
 * charged) the gateway's inquiry comes first and a charge it has is the reply; `mayCharge` is false when only the
 * client can charge (the card token is not stored), and then an inquiry that finds nothing replies `no-charge`.
 */
export type ChargeCard = Message<
  'ChargeCard',
  {
    readonly paymentId: PaymentId;
    readonly attempt: number;
    readonly amount: Money;
    readonly inquireFirst: boolean;
    readonly mayCharge: boolean;
  }
>;

/** Nothing more now: the outcome is unknown and the next attempt is due at `due`; the key stays in flight. */
export type RetryLater = Message<
  'RetryLater',
  { readonly paymentId: PaymentId; readonly due: Timestamp; readonly reason: string }
>;

/** Answer `payment-needs-attention`: an operator resolves the payment. */
export type AnswerNeedsAttention = Message<
  'AnswerNeedsAttention',
  { readonly paymentId: PaymentId; readonly attempts: number }
>;

/** Answer with the payment as its invoice records it: captured, or declined. */
export type AnswerPayment = Message<'AnswerPayment', { readonly paymentId: PaymentId }>;

/** What the workflow asks its runner to do: invoice commands, a gateway call, or an answer to the request. */
export type CardPaymentIntent =
  ReserveCardPayment | RecordCardCharge | ChargeCard | RetryLater | AnswerNeedsAttention | AnswerPayment;
