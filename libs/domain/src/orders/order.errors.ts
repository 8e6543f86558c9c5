import { domainError } from '../errors/index.js';
import type { Money, OrderId, SaleId } from '../shared/index.js';

export class OrderNotFound extends domainError(
  'order-not-found',
  (data: { orderId: OrderId }) => `order ${data.orderId} does not exist`,
) {}

export class OrderAlreadyPlaced extends domainError(
  'order-already-placed',
  (data: { orderId: OrderId }) => `order ${data.orderId} is already placed`,
) {}

export class EmptyOrder extends domainError(
  'empty-order',
  (data: { orderId: OrderId }) => `order ${data.orderId} has no lines`,
) {}

export class OrderAwaitingReview extends domainError(
  'order-awaiting-review',
  (data: { orderId: OrderId; expectedTotal: Money; total: Money }) =>
    `order ${data.orderId} is held for review`,
) {}

export class OrderNotHeld extends domainError(
  'order-not-held',
  (data: { orderId: OrderId }) => `order ${data.orderId} is not held for review`,
) {}

export class OrderNotServed extends domainError(
  'order-not-served',
  (data: { orderId: OrderId }) => `order ${data.orderId} has not been served`,
) {}

export class OrderAlreadyServed extends domainError(
  'order-already-served',
  (data: { orderId: OrderId }) => `order ${data.orderId} is already served`,
) {}

export class OrderAlreadyCompleted extends domainError(
  'order-already-completed',
  (data: { orderId: OrderId; saleId: SaleId }) =>
    `order ${data.orderId} is already completed (sale ${data.saleId})`,
) {}
