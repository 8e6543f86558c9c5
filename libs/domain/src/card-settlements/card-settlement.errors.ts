import { domainError } from '../errors/index.js';
import type { PaymentId } from '../shared/index.js';

export class CardSettlementNotFound extends domainError(
  'card-settlement-not-found',
  (data: { paymentId: PaymentId }) => `no card settlement for payment ${data.paymentId}`,
) {}

export class CardSettlementAlreadySettled extends domainError(
  'card-settlement-already-settled',
  (data: { paymentId: PaymentId; outcome: 'approved' | 'declined' }) =>
    `card payment ${data.paymentId} is already settled (${data.outcome})`,
) {}

export class CardSettlementNotAwaitingOperator extends domainError(
  'card-settlement-not-awaiting-operator',
  (data: { paymentId: PaymentId }) =>
    `card payment ${data.paymentId} does not need attention: the completer is still settling it`,
) {}
