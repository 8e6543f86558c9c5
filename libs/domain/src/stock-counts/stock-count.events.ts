import type { Message } from '../decider/index.js';
import type { Sku, StockCountId, TenantId, Timestamp } from '../values/index.js';

/** One counted line of a stock count. */
export interface CountLine {
  readonly sku: Sku;
  readonly countedQuantity: number;
}

export type StockCountOpened = Message<
  'StockCountOpened',
  { readonly tenantId: TenantId; readonly stockCountId: StockCountId; readonly openedAt: Timestamp }
>;

export type StockCountLineRecorded = Message<
  'StockCountLineRecorded',
  {
    readonly tenantId: TenantId;
    readonly stockCountId: StockCountId;
    readonly sku: Sku;
    readonly countedQuantity: number;
    readonly recordedAt: Timestamp;
  }
>;

/** The count is final: `lines` holds the last recorded quantity of each sku, in the order skus were first counted. */
export type StockCountPosted = Message<
  'StockCountPosted',
  {
    readonly tenantId: TenantId;
    readonly stockCountId: StockCountId;
    readonly lines: readonly CountLine[];
    readonly postedAt: Timestamp;
  }
>;

export type StockCountEvent = StockCountOpened | StockCountLineRecorded | StockCountPosted;
