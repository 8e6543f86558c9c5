import type { Message } from '../decider/index.js';
import type { InvoiceId, Money, PaymentId, TenantId, Timestamp } from '../values/index.js';

/** How long a card payment keeps asking the gateway before a person must look: capped attempts, exponential backoff. */
export interface SettlementRetryPolicy {
  /** Attempts (charge or inquiry) with an unknown outcome before the payment needs attention. */
  readonly maxAttempts: number;
  /** The pause after the first failed attempt (ms); it doubles after each one. */
  readonly baseDelayMs: number;
  /** The longest pause between attempts (ms). */
  readonly maxDelayMs: number;
}

/** The gateway's definitive answer, or the operator's decision. */
export type SettlementOutcome =
  | { readonly status: 'approved'; readonly gatewayReference: string }
  | { readonly status: 'declined'; readonly gatewayReference: string; readonly reason: string };

/** What the gateway says it charged, as it said it: the currency is compared, not trusted to be one we know. */
export interface ChargedAmount {
  readonly amount: number;
  readonly currency: string;
}

export type CardSettlementStarted = Message<
  'CardSettlementStarted',
  {
    readonly tenantId: TenantId;
    readonly invoiceId: InvoiceId;
    readonly paymentId: PaymentId;
    readonly amount: Money;
    readonly policy: SettlementRetryPolicy;
    readonly startedAt: Timestamp;
  }
>;

/** An attempt ended without an outcome; the next one is due at `nextAttemptAt` (absent after the last one). */
export type CardSettlementAttemptFailed = Message<
  'CardSettlementAttemptFailed',
  {
    readonly paymentId: PaymentId;
    readonly attempt: number;
    readonly error: string;
    readonly attemptedAt: Timestamp;
    readonly nextAttemptAt?: Timestamp;
  }
>;

/** The attempts ran out: the amount stays reserved until an operator resolves the payment. */
export type CardSettlementNeedsAttention = Message<
  'CardSettlementNeedsAttention',
  {
    readonly paymentId: PaymentId;
    readonly attempts: number;
    readonly lastError: string;
    readonly flaggedAt: Timestamp;
  }
>;

/** The payment has its outcome; the invoice records it in the same append (`RecordCardCharge`: captured or released). */
export type CardSettlementSettled = Message<
  'CardSettlementSettled',
  {
    readonly paymentId: PaymentId;
    readonly outcome: SettlementOutcome;
    readonly by:
      | { readonly kind: 'gateway' }
      | { readonly kind: 'operator'; readonly operator: string; readonly note: string };
    readonly settledAt: Timestamp;
  }
>;

/**
 * The gateway reported charging another amount or currency than the reservation: the charge is not applied, the
 * amount stays reserved and the payment waits for an operator.
 */
export type GatewayChargeMismatched = Message<
  'GatewayChargeMismatched',
  {
    readonly paymentId: PaymentId;
    readonly gatewayReference: string;
    readonly reserved: Money;
    readonly charged: ChargedAmount;
    readonly detectedAt: Timestamp;
  }
>;

export type CardSettlementEvent =
  | CardSettlementStarted
  | CardSettlementAttemptFailed
  | CardSettlementNeedsAttention
  | CardSettlementSettled
  | GatewayChargeMismatched;
