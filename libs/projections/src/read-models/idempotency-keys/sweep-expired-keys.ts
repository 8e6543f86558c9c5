import type { Pool } from 'pg';
import type { EventStore } from '@once/event-store';

export interface SweepExpiredKeysOptions {
  /** Only rows not updated since this instant are checked (keys live at least 24 h). */
  readonly notUpdatedSince: Date;
  /** Rows checked per call. Default 500. */
  readonly limit?: number;
}

/**
 * Removes rows of keys whose key stream the store no longer returns (retention expired every event), so the key
 * table keeps matching a fresh fold of the log. A row that changed since it was read is left alone.
 *
 * @returns how many rows were removed
 * @example
 * await sweepExpiredKeys(pool, store, { notUpdatedSince: new Date(Date.now() - 24 * 3600_000) });
 */
export const sweepExpiredKeys = async (
  pool: Pool,
  store: EventStore,
  options: SweepExpiredKeysOptions,
): Promise<number> => {
  const candidates = await pool.query<{ stream: string; last_applied_position: string }>(
    `SELECT stream, last_applied_position FROM idempotency_keys WHERE updated_at < $1 ORDER BY updated_at LIMIT $2`,
    [options.notUpdatedSince.toISOString(), options.limit ?? 500],
  );
  let removed = 0;
  for (const { stream, last_applied_position: position } of candidates.rows) {
    const events = await store.readStream(stream, { maxCount: 1 });
    if (events.length > 0) continue;
    const result = await pool.query(
      'DELETE FROM idempotency_keys WHERE stream = $1 AND last_applied_position = $2',
      [stream, position],
    );
    removed += result.rowCount ?? 0;
  }
  return removed;
};
