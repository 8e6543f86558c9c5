import type { Pool, PoolClient } from 'pg';

/** One bounded pass of the scavenger over the streams that carry an age retention. */
export interface ExpiredStreamsBatch {
  /** The last stream looked at; the next batch starts after it. `undefined` when the walk reached the end. */
  readonly cursor: string | undefined;
  /** Streams looked at in this batch. */
  readonly scanned: number;
  /** Streams removed whole (their events and their row). */
  readonly removedStreams: readonly string[];
  readonly removedEvents: number;
  /** How long after its expiry the longest-expired removed stream was removed (seconds); 0 when none was. */
  readonly maxLagSeconds: number;
}

export interface ExpiredStreamsBatchOptions {
  /** Start after this stream name ('' or omitted: from the first). */
  readonly after?: string;
  /** Streams looked at, at most. */
  readonly limit: number;
  /** The clock the store records with; the database's `now()` when omitted. */
  readonly now?: Date;
}

// A stream has expired when its last event is older than its max age: every event is then hidden from reads. The walk
// follows stream names (the `streams_with_retention` index), so a stream kept for days is passed over, never
// waited behind. A candidate is locked (SKIP LOCKED: an append in progress wins) and removed only when its head is
// still the revision of the expired last event, so an append that committed meanwhile keeps its stream.
const removeExpiredStreamsSql = `
WITH batch AS (
  SELECT s.stream, s.max_age_seconds
    FROM streams s
   WHERE (s.max_age_seconds IS NOT NULL OR s.truncate_before IS NOT NULL) AND s.stream > $1
   ORDER BY s.stream
   LIMIT $2
), candidates AS (
  SELECT b.stream, last.revision,
         last.recorded_at + make_interval(secs => b.max_age_seconds) AS expired_at
    FROM batch b
   CROSS JOIN LATERAL (
     SELECT e.revision, e.recorded_at FROM events e WHERE e.stream = b.stream ORDER BY e.revision DESC LIMIT 1
   ) last
   WHERE b.max_age_seconds IS NOT NULL
     AND last.recorded_at < coalesce($3::timestamptz, now()) - make_interval(secs => b.max_age_seconds)
), locked AS (
  SELECT s.stream, s.revision FROM streams s
   WHERE s.stream IN (SELECT c.stream FROM candidates c)
   FOR UPDATE SKIP LOCKED
), expired AS (
  SELECT c.stream, c.expired_at FROM candidates c JOIN locked l ON l.stream = c.stream AND l.revision = c.revision
), removed_events AS (
  DELETE FROM events e USING expired x WHERE e.stream = x.stream RETURNING 1
), removed_streams AS (
  DELETE FROM streams s USING expired x WHERE s.stream = x.stream RETURNING s.stream
)
SELECT (SELECT max(b.stream) FROM batch b) AS last_stream,
       (SELECT count(*) FROM batch) AS scanned,
       (SELECT coalesce(array_agg(r.stream), '{}') FROM removed_streams r) AS removed_streams,
       (SELECT count(*) FROM removed_events) AS removed_events,
       (SELECT coalesce(extract(epoch FROM max(coalesce($3::timestamptz, now()) - x.expired_at)), 0) FROM expired x)
         AS max_lag_seconds`;

/**
 * Removes, whole, the streams among the next `limit` streams with a retention whose every event has expired: their
 * events and their row. A removed stream reads and appends as one that never existed (an expired idempotency key
 * may be used again). Streams with `truncateBefore` only are looked at and kept.
 *
 * @param db a pool or a client of the event store's database
 * @example
 * let after = '';
 * do ({ cursor: after } = await removeExpiredStreams(pool, { after, limit: 500 })); while (after !== undefined);
 */
export const removeExpiredStreams = async (
  db: Pool | PoolClient,
  options: ExpiredStreamsBatchOptions,
): Promise<ExpiredStreamsBatch> => {
  const { rows } = await db.query<{
    last_stream: string | null;
    scanned: string;
    removed_streams: string[];
    removed_events: string;
    max_lag_seconds: string;
  }>(removeExpiredStreamsSql, [options.after ?? '', options.limit, options.now ?? null]);
  const row = rows[0];
  const scanned = Number(row?.scanned ?? 0);
  return {
    cursor: scanned < options.limit ? undefined : (row?.last_stream ?? undefined),
    scanned,
    removedStreams: row?.removed_streams ?? [],
    removedEvents: Number(row?.removed_events ?? 0),
    maxLagSeconds: Number(row?.max_lag_seconds ?? 0),
  };
};
