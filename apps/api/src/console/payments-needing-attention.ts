import type { Pool } from 'pg';
import { listPaymentsNeedingAttention } from '@once/read-models';

/**
 * A tenant's card payments that need an operator, for the console: the `card_settlements` read model (as
 * `GET /payments/needing-attention` serves it) in the console's payment rows. Oldest flagged first.
 *
 * @example
 * const payments = await listConsolePaymentsNeedingAttention(pool, tenantId);
 */
export const listConsolePaymentsNeedingAttention = async (pool: Pool, tenantId: string) =>
  (await listPaymentsNeedingAttention(pool, tenantId)).map((payment) => ({
    ...payment,
    method: 'card' as const,
    status: 'needs-attention' as const,
  }));
