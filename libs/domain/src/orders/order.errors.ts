import { domainError } from '../errors/index.js';
import type { Money, OrderId, SaleId, Sku } from '../values/index.js';

/** An order whose prices changed after the client built it. */
interface RepricedOrder {
  readonly orderId: OrderId;
  readonly expectedTotal: Money;
  readonly total: Money;
}

/** An order whose sale is recorded. */
interface CompletedOrder {
  readonly orderId: OrderId;
  readonly saleId: SaleId;
}

export class OrderNotFound extends domainError('order-not-found')<{ orderId: OrderId }> {}
export class OrderAlreadyPlaced extends domainError('order-already-placed')<{ orderId: OrderId }> {}
export class EmptyOrder extends domainError('empty-order')<{ orderId: OrderId }> {}
export class OrderAwaitingReview extends domainError('order-awaiting-review')<RepricedOrder> {}
export class OrderNotHeld extends domainError('order-not-held')<{ orderId: OrderId }> {}
export class OrderNotServed extends domainError('order-not-served')<{ orderId: OrderId }> {}
export class OrderAlreadyServed extends domainError('order-already-served')<{ orderId: OrderId }> {}
export class OrderAlreadyCompleted extends domainError('order-already-completed')<CompletedOrder> {}
export class TooManyOrderLines extends domainError('too-many-order-lines')<{
  orderId: OrderId;
  lines: number;
  maxLines: number;
}> {}
export class ItemNotOnMenu extends domainError('item-not-on-menu')<{
  orderId: OrderId;
  sku: Sku;
  line: number;
}> {}
