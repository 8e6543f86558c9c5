import type { Pool } from 'pg';
import { fromDatabase } from '@once/projections';
import type { CardSettlementRow } from './card-settlements.projection.js';
import { cardSettlementsTable } from './card-settlements.projection.js';

/**
 * A card payment the completer gave up on, or whose reported charge was not the reservation: an operator must resolve
 * it (`POST /payments/:id/resolve`).
 */
export interface PaymentNeedingAttentionReadModel {
  readonly id: string;
  readonly invoiceId: string;
  readonly amount: number;
  readonly currency: string;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly flaggedAt: string;
  /** What the gateway reported charging when it was not the reservation: recorded, not applied. */
  readonly gatewayCharged: { readonly amount: number; readonly currency: string } | null;
}

const toPaymentNeedingAttention = (row: CardSettlementRow): PaymentNeedingAttentionReadModel => ({
  id: row.payment_id,
  invoiceId: row.invoice_id,
  amount: row.amount,
  currency: row.currency,
  attempts: row.attempts,
  lastError: row.last_error,
  flaggedAt: new Date(row.flagged_at ?? 0).toISOString(),
  gatewayCharged:
    row.charged_amount === null || row.charged_currency === null
      ? null
      : { amount: row.charged_amount, currency: row.charged_currency },
});

/**
 * A tenant's card payments that need attention, oldest flagged first (at most `limit`).
 *
 * @example
 * const payments = await listPaymentsNeedingAttention(pool, tenantId);
 */
export const listPaymentsNeedingAttention = async (
  pool: Pool,
  tenantId: string,
  limit = 100,
): Promise<readonly PaymentNeedingAttentionReadModel[]> => {
  const { rows } = await pool.query<Record<string, unknown>>(
    `SELECT * FROM card_settlements WHERE tenant_id = $1 AND status = 'needs-attention'
      ORDER BY flagged_at, payment_id LIMIT $2`,
    [tenantId, limit],
  );
  return rows.map((raw) =>
    toPaymentNeedingAttention(fromDatabase(cardSettlementsTable, raw) as CardSettlementRow),
  );
};

/**
 * How many card payments need attention, every tenant's (the metric).
 *
 * @example
 * const count = await countPaymentsNeedingAttention(pool);
 */
export const countPaymentsNeedingAttention = async (pool: Pool): Promise<number> => {
  const { rows } = await pool.query<{ count: string }>(
    `SELECT count(*) AS count FROM card_settlements WHERE status = 'needs-attention'`,
  );
  return Number(rows[0]?.count ?? 0);
};
