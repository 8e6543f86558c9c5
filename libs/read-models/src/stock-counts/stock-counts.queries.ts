import type { Pool } from 'pg';
import { fromDatabase } from '@once/projections';
import type { StockCountLineRow, StockCountRow } from './stock-counts.projection.js';
import { stockCountLinesTable, stockCountsTable } from './stock-counts.projection.js';

/** A stock count as the read model shows it (the API's stock count view). */
export interface StockCountReadModel {
  readonly id: string;
  readonly status: StockCountRow['status'];
  readonly lines: readonly { readonly sku: string; readonly countedQuantity: number }[];
  readonly openedAt: string;
  readonly postedAt?: string;
}

/**
 * One stock count of a tenant with its lines in counting order, from the live read model.
 *
 * @example
 * const count = await getStockCount(pool, tenantId, stockCountId);
 */
export const getStockCount = async (
  pool: Pool,
  tenantId: string,
  stockCountId: string,
): Promise<StockCountReadModel | undefined> => {
  const result = await pool.query<Record<string, unknown> & { line_rows: Record<string, unknown>[] }>(
    `SELECT c.*, COALESCE(
        (SELECT json_agg(l ORDER BY l.line_number) FROM stock_count_lines l
          WHERE l.tenant_id = c.tenant_id AND l.stock_count_id = c.stock_count_id), '[]'::json) AS line_rows
       FROM stock_counts c WHERE c.tenant_id = $1 AND c.stock_count_id = $2`,
    [tenantId, stockCountId],
  );
  const raw = result.rows[0];
  if (!raw) return undefined;
  const row = fromDatabase(stockCountsTable, raw) as StockCountRow;
  return {
    id: row.stock_count_id,
    status: row.status,
    lines: raw.line_rows.map((line) => {
      const lineRow = fromDatabase(stockCountLinesTable, line) as StockCountLineRow;
      return { sku: lineRow.sku, countedQuantity: lineRow.counted_quantity };
    }),
    openedAt: row.opened_at,
    ...(row.posted_at === null ? {} : { postedAt: row.posted_at }),
  };
};
