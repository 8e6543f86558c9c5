import type { Message } from '../decider/index.js';
import type { OrderId, SaleId, Sku, TenantId, Timestamp } from '../values/index.js';

/** One order line; `unitPrice` in minor units of the order's currency. */
export interface OrderLine {
  readonly sku: Sku;
  readonly quantity: number;
  readonly unitPrice: number;
}

/**
 * Places an order. `lines` carry the prices in force when the order is submitted (the caller looks them up);
 * `expectedTotal` is the total the client showed when the order was made, possibly hours earlier from an offline
 * queue. When the two totals differ the order is held for review instead of being silently repriced.
 */
export type PlaceOrder = Message<
  'PlaceOrder',
  {
    readonly tenantId: TenantId;
    readonly orderId: OrderId;
    readonly currency: string;
    readonly lines: readonly OrderLine[];
    readonly expectedTotal?: number;
    readonly placedAt: Timestamp;
  }
>;

/** Accepts the current prices of an order held for review. */
export type ApproveOrder = Message<
  'ApproveOrder',
  { readonly orderId: OrderId; readonly approvedAt: Timestamp }
>;

export type ServeOrder = Message<'ServeOrder', { readonly orderId: OrderId; readonly servedAt: Timestamp }>;

/** Completes a served order; its sale is recorded under `saleId`. */
export type CompleteOrder = Message<
  'CompleteOrder',
  { readonly orderId: OrderId; readonly saleId: SaleId; readonly completedAt: Timestamp }
>;

export type OrderCommand = PlaceOrder | ApproveOrder | ServeOrder | CompleteOrder;
