import type { Pool } from 'pg';
import { fromDatabase } from '@once/projections';
import type { OrderRow, SaleRow } from './orders.projection.js';
import { ordersTable, salesTable } from './orders.projection.js';

/** An order as the read model shows it (the API's order view). */
export interface OrderReadModel {
  readonly id: string;
  readonly status: OrderRow['status'];
  readonly currency: string;
  readonly total: number;
  readonly lines: readonly { readonly sku: string; readonly quantity: number; readonly unitPrice: number }[];
  readonly placedAt: string;
  readonly expectedTotal?: number;
  readonly servedAt?: string;
  readonly saleId?: string;
  readonly completedAt?: string;
}

/** A sale: what a completed order became. */
export interface SaleReadModel {
  readonly id: string;
  readonly orderId: string;
  readonly currency: string;
  readonly total: number;
  readonly lines: readonly { readonly sku: string; readonly quantity: number; readonly unitPrice: number }[];
  readonly recordedAt: string;
}

const toOrder = (row: OrderRow): OrderReadModel => ({
  id: row.order_id,
  status: row.status,
  currency: row.currency,
  total: row.total,
  lines: row.lines as OrderReadModel['lines'],
  placedAt: row.placed_at,
  ...(row.status === 'held' && row.expected_total !== null ? { expectedTotal: row.expected_total } : {}),
  ...(row.served_at === null ? {} : { servedAt: row.served_at }),
  ...(row.sale_id === null ? {} : { saleId: row.sale_id }),
  ...(row.completed_at === null ? {} : { completedAt: row.completed_at }),
});

const toSale = (row: SaleRow): SaleReadModel => ({
  id: row.sale_id,
  orderId: row.order_id,
  currency: row.currency,
  total: row.total,
  lines: row.lines as SaleReadModel['lines'],
  recordedAt: row.recorded_at,
});

/**
 * One order of a tenant, from the live read model.
 *
 * @example
 * const order = await getOrder(pool, tenantId, orderId);
 */
export const getOrder = async (
  pool: Pool,
  tenantId: string,
  orderId: string,
): Promise<OrderReadModel | undefined> => {
  const result = await pool.query<Record<string, unknown>>(
    'SELECT * FROM orders WHERE tenant_id = $1 AND order_id = $2',
    [tenantId, orderId],
  );
  const raw = result.rows[0];
  return raw ? toOrder(fromDatabase(ordersTable, raw) as OrderRow) : undefined;
};

/**
 * The sale an order of a tenant became, if it was completed.
 *
 * @example
 * const sale = await getSaleByOrder(pool, tenantId, orderId);
 */
export const getSaleByOrder = async (
  pool: Pool,
  tenantId: string,
  orderId: string,
): Promise<SaleReadModel | undefined> => {
  const result = await pool.query<Record<string, unknown>>(
    'SELECT * FROM sales WHERE tenant_id = $1 AND order_id = $2',
    [tenantId, orderId],
  );
  const raw = result.rows[0];
  return raw ? toSale(fromDatabase(salesTable, raw) as SaleRow) : undefined;
};
