import type { Message } from '../decider/index.js';
import type { Money, Sku, TenantId, Timestamp } from '../values/index.js';

export type MenuItemAdded = Message<
  'MenuItemAdded',
  {
    readonly tenantId: TenantId;
    readonly sku: Sku;
    readonly name: string;
    readonly unitPrice: Money;
    readonly addedAt: Timestamp;
  }
>;

/** The item's price changed: orders placed from now on are priced at `unitPrice`. */
export type MenuItemRepriced = Message<
  'MenuItemRepriced',
  {
    readonly tenantId: TenantId;
    readonly sku: Sku;
    readonly unitPrice: Money;
    readonly previousUnitPrice: Money;
    readonly repricedAt: Timestamp;
  }
>;

export type MenuItemRenamed = Message<
  'MenuItemRenamed',
  { readonly tenantId: TenantId; readonly sku: Sku; readonly name: string; readonly renamedAt: Timestamp }
>;

export type MenuItemWithdrawn = Message<
  'MenuItemWithdrawn',
  { readonly tenantId: TenantId; readonly sku: Sku; readonly withdrawnAt: Timestamp }
>;

export type MenuEvent = MenuItemAdded | MenuItemRepriced | MenuItemRenamed | MenuItemWithdrawn;
