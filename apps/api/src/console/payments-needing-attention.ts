import type { Pool } from 'pg';

/**
 * A tenant's card payments still `reserved`: the gateway's answer is not recorded yet (a charge in flight, or one the
 * completer or the gateway's webhook has still to settle). Oldest first.
 *
 * @example
 * const payments = await listPaymentsNeedingAttention(pool, tenantId);
 */
export const listPaymentsNeedingAttention = async (pool: Pool, tenantId: string) => {
  const { rows } = await pool.query<{
    payment_id: string;
    invoice_id: string;
    method: string;
    status: string;
    amount: string;
    currency: string;
  }>(
    `SELECT payment_id, invoice_id, method, status, amount, currency FROM payments
      WHERE tenant_id = $1 AND status = 'reserved' ORDER BY created_position LIMIT 100`,
    [tenantId],
  );
  return rows.map((row) => ({
    id: row.payment_id,
    invoiceId: row.invoice_id,
    method: row.method,
    status: row.status,
    amount: Number(row.amount),
    currency: row.currency,
  }));
};
