import type { Message } from '../decider/index.js';
import type { Sku, StockCountId, TenantId, Timestamp } from '../values/index.js';

export type OpenStockCount = Message<
  'OpenStockCount',
  { readonly tenantId: TenantId; readonly stockCountId: StockCountId; readonly openedAt: Timestamp }
>;

/** Records how many of a sku were counted; recording the same sku again replaces its line. */
export type RecordCountLine = Message<
  'RecordCountLine',
  {
    readonly stockCountId: StockCountId;
    readonly sku: Sku;
    readonly countedQuantity: number;
    readonly recordedAt: Timestamp;
  }
>;

export type PostStockCount = Message<
  'PostStockCount',
  { readonly stockCountId: StockCountId; readonly postedAt: Timestamp }
>;

export type StockCountCommand = OpenStockCount | RecordCountLine | PostStockCount;
