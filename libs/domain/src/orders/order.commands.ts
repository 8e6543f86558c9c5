import type { Message } from '../decider/index.js';
import type { MenuState } from '../menus/index.js';
import type { OrderId, SaleId, Sku, TenantId, Timestamp } from '../values/index.js';

/** One order line as placed; `unitPrice` in minor units of the order's currency, taken from the menu. */
export interface OrderLine {
  readonly sku: Sku;
  readonly quantity: number;
  readonly unitPrice: number;
}

/** What a client orders on one line: an item of the menu and how many. It never names a price. */
export interface OrderedItem {
  readonly sku: Sku;
  readonly quantity: number;
}

/**
 * Places an order. Every line is priced from `menu`, the tenant's menu as it is when the order arrives (the caller
 * reads it); `expectedTotal` is the total the client showed when the order was made, possibly hours earlier from an
 * offline queue. When the two totals differ the order is held for review instead of being silently repriced.
 */
export type PlaceOrder = Message<
  'PlaceOrder',
  {
    readonly tenantId: TenantId;
    readonly orderId: OrderId;
    readonly currency: string;
    readonly items: readonly OrderedItem[];
    readonly menu: MenuState;
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
