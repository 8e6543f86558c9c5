import type { Message } from '../decider/index.js';
import type { InvoiceId, Money, PaymentId, TenantId, Timestamp } from '../values/index.js';
import type { ChargedAmount, SettlementOutcome, SettlementRetryPolicy } from './card-settlement.commands.js';

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

/** The payment has its outcome: the invoice records it (`RecordCardCharge`), which captures or releases the amount. */
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
