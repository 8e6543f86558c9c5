import type { RecordedEvent } from '@once/event-store';
import { formatPosition } from '@once/event-store';
import { streamPrefixes } from '@once/domain';
import type { StockCountEvent } from '@once/domain/stock-counts';
import { defineTable, rowRef } from '@once/projections';
import type { ProjectionDefinition, RowRef } from '@once/projections';

export type StockCountRow = {
  tenant_id: string;
  stock_count_id: string;
  status: 'open' | 'posted';
  opened_at: string;
  posted_at: string | null;
  line_count: number;
  last_position: string;
};

export type StockCountLineRow = {
  tenant_id: string;
  stock_count_id: string;
  sku: string;
  counted_quantity: number;
  /** 1-based place of the sku in the count: where it was first counted. */
  line_number: number;
  last_position: string;
};

export const stockCountsTable = defineTable<StockCountRow>({
  name: 'stock_counts',
  columns: {
    tenant_id: { type: 'text' },
    stock_count_id: { type: 'text' },
    status: { type: 'text' },
    opened_at: { type: 'timestamptz' },
    posted_at: { type: 'timestamptz', nullable: true },
    line_count: { type: 'integer' },
    last_position: { type: 'text' },
  },
  primaryKey: ['tenant_id', 'stock_count_id'],
});

export const stockCountLinesTable = defineTable<StockCountLineRow>({
  name: 'stock_count_lines',
  columns: {
    tenant_id: { type: 'text' },
    stock_count_id: { type: 'text' },
    sku: { type: 'text' },
    counted_quantity: { type: 'bigint' },
    line_number: { type: 'integer' },
    last_position: { type: 'text' },
  },
  primaryKey: ['tenant_id', 'stock_count_id', 'sku'],
});

const stockCountEventTypes: readonly StockCountEvent['type'][] = [
  'StockCountOpened',
  'StockCountLineRecorded',
  'StockCountPosted',
];

/** Stock counts and their lines over the `stock-count-` streams; mirrors the stock count decider. */
export const stockCountsProjection: ProjectionDefinition = {
  name: 'stock_counts',
  version: 1,
  eventTypes: stockCountEventTypes,
  streamPrefixes: [streamPrefixes.stockCount],
  tables: [stockCountsTable, stockCountLinesTable],
  reads: (recorded) => {
    const event = recorded as RecordedEvent & StockCountEvent;
    const key = { tenant_id: event.data.tenantId, stock_count_id: event.data.stockCountId };
    const refs: RowRef[] = [rowRef(stockCountsTable, key)];
    if (event.type === 'StockCountLineRecorded')
      refs.push(rowRef(stockCountLinesTable, { ...key, sku: event.data.sku }));
    return refs;
  },
  apply: async (tx, recorded) => {
    const event = recorded as RecordedEvent & StockCountEvent;
    const position = formatPosition(recorded.position);
    const key = { tenant_id: event.data.tenantId, stock_count_id: event.data.stockCountId };
    if (event.type === 'StockCountOpened') {
      tx.put(stockCountsTable, {
        ...key,
        status: 'open',
        opened_at: event.data.openedAt,
        posted_at: null,
        line_count: 0,
        last_position: position,
      });
      return;
    }
    const count = await tx.get(stockCountsTable, key);
    if (!count || count.status !== 'open') return;
    switch (event.type) {
      case 'StockCountLineRecorded': {
        const line = await tx.get(stockCountLinesTable, { ...key, sku: event.data.sku });
        const lineNumber = line?.line_number ?? count.line_count + 1;
        tx.put(stockCountLinesTable, {
          ...key,
          sku: event.data.sku,
          counted_quantity: event.data.countedQuantity,
          line_number: lineNumber,
          last_position: position,
        });
        tx.put(stockCountsTable, {
          ...count,
          line_count: Math.max(count.line_count, lineNumber),
          last_position: position,
        });
        return;
      }
      case 'StockCountPosted':
        tx.put(stockCountsTable, {
          ...count,
          status: 'posted',
          posted_at: event.data.postedAt,
          last_position: position,
        });
        return;
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
  },
};
