import type { Pool } from 'pg';
import { fromDatabase } from '@once/projections';
import type { IdempotencyKeyRow } from './idempotency-keys.projection.js';
import { idempotencyKeysTable } from './idempotency-keys.projection.js';

/**
 * The caller's own key, as the live key table has it; undefined when the key is unknown to this tenant and actor.
 *
 * @example
 * const row = await getIdempotencyKey(pool, { tenantId, actorId, key: 'order-4711-create' });
 */
export const getIdempotencyKey = async (
  pool: Pool,
  scope: { readonly tenantId: string; readonly actorId: string; readonly key: string },
): Promise<IdempotencyKeyRow | undefined> => {
  const result = await pool.query<Record<string, unknown>>(
    'SELECT * FROM idempotency_keys WHERE tenant_id = $1 AND actor_id = $2 AND key = $3',
    [scope.tenantId, scope.actorId, scope.key],
  );
  const raw = result.rows[0];
  return raw ? (fromDatabase(idempotencyKeysTable, raw) as IdempotencyKeyRow) : undefined;
};

/**
 * Keys in flight whose lease has ended by `now`, oldest first: the work list of the completer.
 *
 * @example
 * const abandoned = await listAbandonedKeys(pool, { now: new Date(), limit: 100 });
 */
export const listAbandonedKeys = async (
  pool: Pool,
  options: { readonly now: Date; readonly limit?: number },
): Promise<readonly IdempotencyKeyRow[]> => {
  const result = await pool.query<Record<string, unknown>>(
    `SELECT * FROM idempotency_keys WHERE status = 'inFlight' AND locked_until <= $1
      ORDER BY locked_until LIMIT $2`,
    [options.now.toISOString(), options.limit ?? 100],
  );
  return result.rows.map((raw) => fromDatabase(idempotencyKeysTable, raw) as IdempotencyKeyRow);
};
