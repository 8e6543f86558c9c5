import type { Message } from '../decider/index.js';
import type { Sku, TenantId, Timestamp } from '../values/index.js';

/**
 * Puts an item on the tenant's menu at exactly this name and price: adds it when it is not on the menu (or was
 * withdrawn), reprices or renames it when it is, and changes nothing when it already reads so.
 */
export type SetMenuItem = Message<
  'SetMenuItem',
  {
    readonly tenantId: TenantId;
    readonly sku: Sku;
    readonly name: string;
    /** Minor units of `currency`. */
    readonly unitPrice: number;
    readonly currency: string;
    readonly setAt: Timestamp;
  }
>;

/** Takes an item off the menu: orders for it are refused until it is set again. */
export type WithdrawMenuItem = Message<
  'WithdrawMenuItem',
  { readonly tenantId: TenantId; readonly sku: Sku; readonly withdrawnAt: Timestamp }
>;

export type MenuCommand = SetMenuItem | WithdrawMenuItem;
