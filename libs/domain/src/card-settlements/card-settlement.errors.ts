import { DomainError } from '../errors/index.js';
import type { PaymentId } from '../shared/index.js';

export class CardSettlementNotFound extends DomainError<
  'card-settlement-not-found',
  { paymentId: PaymentId }
> {
  constructor(data: { paymentId: PaymentId }, options?: ErrorOptions) {
    super('card-settlement-not-found', data, `no card settlement for payment ${data.paymentId}`, options);
  }
}

export class CardSettlementAlreadySettled extends DomainError<
  'card-settlement-already-settled',
  { paymentId: PaymentId; outcome: 'approved' | 'declined' }
> {
  constructor(data: { paymentId: PaymentId; outcome: 'approved' | 'declined' }, options?: ErrorOptions) {
    super(
      'card-settlement-already-settled',
      data,
      `card payment ${data.paymentId} is already settled (${data.outcome})`,
      options,
    );
  }
}

export class CardSettlementNotAwaitingOperator extends DomainError<
  'card-settlement-not-awaiting-operator',
  { paymentId: PaymentId }
> {
  constructor(data: { paymentId: PaymentId }, options?: ErrorOptions) {
    super(
      'card-settlement-not-awaiting-operator',
      data,
      `card payment ${data.paymentId} does not need attention: the completer is still settling it`,
      options,
    );
  }
}
