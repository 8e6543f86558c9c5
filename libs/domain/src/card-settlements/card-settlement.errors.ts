import { domainError } from '../errors/index.js';
import type { PaymentId } from '../values/index.js';

/** One card payment's settlement. */
interface SettlementRef {
  readonly paymentId: PaymentId;
}

/** A settlement that already ended. */
interface SettledPayment extends SettlementRef {
  readonly outcome: 'approved' | 'declined';
}

export class CardSettlementNotFound extends domainError('card-settlement-not-found')<SettlementRef> {}
export class CardSettlementAlreadySettled extends domainError(
  'card-settlement-already-settled',
)<SettledPayment> {}
export class CardSettlementNotAwaitingOperator extends domainError(
  'card-settlement-not-awaiting-operator',
)<SettlementRef> {}
