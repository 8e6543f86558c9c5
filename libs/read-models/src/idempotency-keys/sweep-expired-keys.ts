import type { Pool } from 'pg';
import type { EventStore } from '@once/event-store';

/** Where a sweep stopped: the next one resumes after this row (the walk's order is `updated_at, stream`). */
export interface KeySweepCursor {
  readonly updatedAt: string;
  readonly stream: string;
}

export interface SweepExpiredKeysOptions {
  /** Only rows not updated since this instant are checked (keys live at least 24 h). */
  readonly notUpdatedSince: Date;
  /** Rows checked per call. Default 500. */
  readonly limit?: number;
  /** Resume after this row; from the oldest when omitted. */
  readonly after?: KeySweepCursor;
}

export interface KeySweep {
  readonly removed: number;
  /** Pass it to the next sweep; `undefined` when this one reached the end (the next starts from the oldest again). */
  readonly next: KeySweepCursor | undefined;
}

/**
 * Removes rows of keys whose key stream the store no longer returns (retention expired every event), so the key
 * table keeps matching a fresh fold of the log. A row that changed since it was read is left alone. The sweep walks
 * the idle rows in `(updated_at, stream)` order through that index and resumes where it stopped, so keys kept for a
 * week are checked once per walk instead of stalling every sweep at the front.
 *
 * @example
 * let after: KeySweepCursor | undefined;
 * ({ next: after } = await sweepExpiredKeys(pool, store, { notUpdatedSince, ...(after ? { after } : {}) }));
 */
export const sweepExpiredKeys = async (
  pool: Pool,
  store: EventStore,
  options: SweepExpiredKeysOptions,
): Promise<KeySweep> => {
  const limit = options.limit ?? 500;
  const after = options.after ?? { updatedAt: '-infinity', stream: '' };
  const candidates = await pool.query<{ stream: string; last_applied_position: string; updated_at: Date }>(
    `SELECT stream, last_applied_position, updated_at FROM idempotency_keys
      WHERE updated_at < $1 AND (updated_at, stream) > ($2::timestamptz, $3)
      ORDER BY updated_at, stream LIMIT $4`,
    [options.notUpdatedSince.toISOString(), after.updatedAt, after.stream, limit],
  );
  let removed = 0;
  for (const { stream, last_applied_position: position } of candidates.rows) {
    const events = await store.readStream(stream, { maxCount: 1 });
    if (events.length > 0) continue;
    removed += await removeKeyRow(pool, stream, position);
  }
  const last = candidates.rows.at(-1);
  return {
    removed,
    next:
      last && candidates.rows.length === limit
        ? { updatedAt: last.updated_at.toISOString(), stream: last.stream }
        : undefined,
  };
};

const removeKeyRow = async (pool: Pool, stream: string, position: string): Promise<number> => {
  const result = await pool.query(
    'DELETE FROM idempotency_keys WHERE stream = $1 AND last_applied_position = $2',
    [stream, position],
  );
  return result.rowCount ?? 0;
};

/**
 * Removes the key-table rows of key streams the scavenger has removed whole (by primary key: no scan).
 *
 * @example
 * startStreamScavenger({ pool, onStreamsRemoved: (streams) => removeKeyRowsOfStreams(pool, streams) });
 */
export const removeKeyRowsOfStreams = async (pool: Pool, streams: readonly string[]): Promise<number> => {
  const result = await pool.query('DELETE FROM idempotency_keys WHERE stream = ANY($1::text[])', [streams]);
  return result.rowCount ?? 0;
};
