import type { Message } from '../decider/index.js';
import type { InvoiceId, Money, PaymentId, TenantId, Timestamp } from '../values/index.js';
import type { ChargedAmount, SettlementOutcome, SettlementRetryPolicy } from './card-settlement.events.js';

export type { ChargedAmount, SettlementOutcome, SettlementRetryPolicy };

/** A card payment was reserved on its invoice: from now on it must end approved or declined. */
export type StartCardSettlement = Message<
  'StartCardSettlement',
  {
    readonly tenantId: TenantId;
    readonly invoiceId: InvoiceId;
    readonly paymentId: PaymentId;
    readonly amount: Money;
    readonly policy: SettlementRetryPolicy;
    readonly startedAt: Timestamp;
  }
>;

/** An attempt (charge or inquiry) whose outcome is unknown: a timeout, a 5xx, an answer that does not parse. */
export type RecordUnknownAttempt = Message<
  'RecordUnknownAttempt',
  { readonly paymentId: PaymentId; readonly error: string; readonly attemptedAt: Timestamp }
>;

/** The gateway answered definitively (the charge, the inquiry or the webhook). */
export type SettleFromGateway = Message<
  'SettleFromGateway',
  { readonly paymentId: PaymentId; readonly outcome: SettlementOutcome; readonly settledAt: Timestamp }
>;

/** The gateway reported a charge for the payment (its webhook): its amount and currency must be the reservation's. */
export type CheckGatewayCharge = Message<
  'CheckGatewayCharge',
  {
    readonly paymentId: PaymentId;
    readonly gatewayReference: string;
    readonly charged: ChargedAmount;
    readonly checkedAt: Timestamp;
  }
>;

/** An operator resolves a payment that needs attention: after inquiring again, or by marking it declined. */
export type ResolveByOperator = Message<
  'ResolveByOperator',
  {
    readonly paymentId: PaymentId;
    readonly outcome: SettlementOutcome;
    readonly operator: string;
    readonly note: string;
    readonly resolvedAt: Timestamp;
  }
>;

export type CardSettlementCommand =
  StartCardSettlement | RecordUnknownAttempt | SettleFromGateway | ResolveByOperator | CheckGatewayCharge;
