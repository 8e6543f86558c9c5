import type { Pool, PoolClient } from 'pg';
import type { GlobalPosition } from '@once/event-store';
import { parsePosition } from '@once/event-store';

/** The relay writes at most one mark per this interval. */
export const logMarkIntervalMs = 60_000;

/**
 * How far a later position's `recordedAt` may be earlier than an earlier one's (writes commit in another order than
 * they started): a replay starts this much before its range, and reads this much past it.
 */
export const logClockSkewMs = 60_000;

/**
 * Marks a place in the log with the time of the first event after it, so that a replay of a time range starts near
 * it rather than at the log's beginning.
 *
 * @example
 * await recordLogMark(client, '00000000000000000042:00000000000000000042', event.recordedAt);
 */
export const recordLogMark = async (
  db: Pool | PoolClient,
  position: string,
  recordedAt: Date,
): Promise<void> => {
  await db.query(
    'INSERT INTO webhook_log_marks (position, recorded_at) VALUES ($1, $2) ON CONFLICT (position) DO NOTHING',
    [position, recordedAt],
  );
};

/**
 * The latest mark safely before `from` (every event recorded at or after `from` comes after it); undefined when
 * there is none, and a replay reads from the log's beginning.
 *
 * @example
 * const after = await logMarkBefore(pool, new Date('2026-01-01T00:00:00Z'));
 */
export const logMarkBefore = async (pool: Pool, from: Date): Promise<GlobalPosition | undefined> => {
  const row = (
    await pool.query<{ position: string }>(
      'SELECT position FROM webhook_log_marks WHERE recorded_at <= $1 ORDER BY recorded_at DESC LIMIT 1',
      [new Date(from.getTime() - logClockSkewMs)],
    )
  ).rows[0];
  return row ? parsePosition(row.position) : undefined;
};

/**
 * Thins marks older than `olderThan` to the first one of each day, so the table stays small (a replay of a range
 * that old may read up to a day of the log before it). Returns how many were removed.
 *
 * @example
 * await thinLogMarks(pool, new Date(Date.now() - 30 * 86_400_000));
 */
export const thinLogMarks = async (pool: Pool, olderThan: Date): Promise<number> => {
  const result = await pool.query(
    `DELETE FROM webhook_log_marks m
      WHERE m.recorded_at < $1
        AND EXISTS (SELECT 1 FROM webhook_log_marks o
                     WHERE o.recorded_at >= date_trunc('day', m.recorded_at) AND o.recorded_at < m.recorded_at)`,
    [olderThan],
  );
  return result.rowCount ?? 0;
};
