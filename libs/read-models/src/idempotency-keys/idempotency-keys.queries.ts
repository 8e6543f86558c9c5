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

/** Where a walk through abandoned keys stopped: the next page starts after this key (by lease end, then stream). */
export interface AbandonedKeyCursor {
  readonly lockedUntil: string;
  readonly stream: string;
}

/**
 * Keys in flight whose lease has ended by `now`, oldest lease first (then by stream): the work list of the completer.
 * `after` pages on past keys already looked at, so keys the completer cannot resume never hold back the rest.
 *
 * @example
 * const abandoned = await listAbandonedKeys(pool, { now: new Date(), limit: 100 });
 * const next = await listAbandonedKeys(pool, { now, after: cursorOf(abandoned.at(-1)) });
 */
export const listAbandonedKeys = async (
  pool: Pool,
  options: {
    readonly now: Date;
    readonly limit?: number;
    readonly after?: AbandonedKeyCursor;
    /** Only this tenant's keys. */
    readonly tenantId?: string;
  },
): Promise<readonly IdempotencyKeyRow[]> => {
  const result = await pool.query<Record<string, unknown>>(
    `SELECT * FROM idempotency_keys
      WHERE status = 'inFlight' AND locked_until <= $1
        AND (locked_until, stream) > ($2::timestamptz, $3)
        AND ($5::text IS NULL OR tenant_id = $5)
      ORDER BY locked_until, stream LIMIT $4`,
    [
      options.now.toISOString(),
      options.after?.lockedUntil ?? '-infinity',
      options.after?.stream ?? '',
      options.limit ?? 100,
      options.tenantId ?? null,
    ],
  );
  return result.rows.map((raw) => fromDatabase(idempotencyKeysTable, raw) as IdempotencyKeyRow);
};

/**
 * The cursor after a key row of `listAbandonedKeys`.
 *
 * @example
 * const after = abandonedKeyCursor(rows.at(-1));
 */
export const abandonedKeyCursor = (row: IdempotencyKeyRow): AbandonedKeyCursor => ({
  lockedUntil: row.locked_until ?? '-infinity',
  stream: row.stream,
});
