import { DomainError } from '../errors/index.js';
import type { Money, OrderId, SaleId } from '../shared/index.js';

export class OrderNotFound extends DomainError<'order-not-found', { orderId: OrderId }> {
  constructor(data: { orderId: OrderId }, options?: ErrorOptions) {
    super('order-not-found', data, `order ${data.orderId} does not exist`, options);
  }
}

export class OrderAlreadyPlaced extends DomainError<'order-already-placed', { orderId: OrderId }> {
  constructor(data: { orderId: OrderId }, options?: ErrorOptions) {
    super('order-already-placed', data, `order ${data.orderId} is already placed`, options);
  }
}

export class EmptyOrder extends DomainError<'empty-order', { orderId: OrderId }> {
  constructor(data: { orderId: OrderId }, options?: ErrorOptions) {
    super('empty-order', data, `order ${data.orderId} has no lines`, options);
  }
}

export class OrderAwaitingReview extends DomainError<
  'order-awaiting-review',
  { orderId: OrderId; expectedTotal: Money; total: Money }
> {
  constructor(data: { orderId: OrderId; expectedTotal: Money; total: Money }, options?: ErrorOptions) {
    super('order-awaiting-review', data, `order ${data.orderId} is held for review`, options);
  }
}

export class OrderNotHeld extends DomainError<'order-not-held', { orderId: OrderId }> {
  constructor(data: { orderId: OrderId }, options?: ErrorOptions) {
    super('order-not-held', data, `order ${data.orderId} is not held for review`, options);
  }
}

export class OrderNotServed extends DomainError<'order-not-served', { orderId: OrderId }> {
  constructor(data: { orderId: OrderId }, options?: ErrorOptions) {
    super('order-not-served', data, `order ${data.orderId} has not been served`, options);
  }
}

export class OrderAlreadyServed extends DomainError<'order-already-served', { orderId: OrderId }> {
  constructor(data: { orderId: OrderId }, options?: ErrorOptions) {
    super('order-already-served', data, `order ${data.orderId} is already served`, options);
  }
}

export class OrderAlreadyCompleted extends DomainError<
  'order-already-completed',
  { orderId: OrderId; saleId: SaleId }
> {
  constructor(data: { orderId: OrderId; saleId: SaleId }, options?: ErrorOptions) {
    super(
      'order-already-completed',
      data,
      `order ${data.orderId} is already completed (sale ${data.saleId})`,
      options,
    );
  }
}
