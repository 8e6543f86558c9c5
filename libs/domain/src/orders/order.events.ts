import type { Message } from '../decider/index.js';
import type { Money, OrderId, SaleId, TenantId, Timestamp } from '../values/index.js';
import type { OrderLine } from './order.commands.js';

export type OrderPlaced = Message<
  'OrderPlaced',
  {
    readonly tenantId: TenantId;
    readonly orderId: OrderId;
    readonly lines: readonly OrderLine[];
    readonly total: Money;
    readonly placedAt: Timestamp;
  }
>;

/** The client expected another total than the current prices give; the order waits for a person to approve it. */
export type OrderHeldForReview = Message<
  'OrderHeldForReview',
  {
    readonly tenantId: TenantId;
    readonly orderId: OrderId;
    readonly expectedTotal: Money;
    readonly total: Money;
    readonly heldAt: Timestamp;
  }
>;

export type OrderApproved = Message<
  'OrderApproved',
  {
    readonly tenantId: TenantId;
    readonly orderId: OrderId;
    readonly total: Money;
    readonly approvedAt: Timestamp;
  }
>;

export type OrderServed = Message<
  'OrderServed',
  { readonly tenantId: TenantId; readonly orderId: OrderId; readonly servedAt: Timestamp }
>;

export type OrderCompleted = Message<
  'OrderCompleted',
  {
    readonly tenantId: TenantId;
    readonly orderId: OrderId;
    readonly saleId: SaleId;
    readonly completedAt: Timestamp;
  }
>;

/** The sale an order became; recorded once, together with OrderCompleted. */
export type SaleRecorded = Message<
  'SaleRecorded',
  {
    readonly tenantId: TenantId;
    readonly saleId: SaleId;
    readonly orderId: OrderId;
    readonly lines: readonly OrderLine[];
    readonly total: Money;
    readonly recordedAt: Timestamp;
  }
>;

export type OrderEvent =
  OrderPlaced | OrderHeldForReview | OrderApproved | OrderServed | OrderCompleted | SaleRecorded;
