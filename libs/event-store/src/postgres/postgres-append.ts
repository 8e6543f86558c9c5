import type { ClientBase, Pool } from 'pg';
import type {
  AppendResult,
  EventToAppend,
  ExpectedRevision,
  StreamAppend,
  StreamRetention,
} from '../port/index.js';
import { WrongExpectedRevisionError } from '../port/index.js';
import { guardedWriteRefusal, isGuardedWrite } from '../port/append-validation.js';
import { eventRowTypes } from './event-row-types.js';

/** What one call of `event_store_append` decided. */
export type AppendOutcome =
  | { readonly kind: 'ok' | 'idempotent'; readonly result: AppendResult }
  | { readonly kind: 'wrong'; readonly error: WrongExpectedRevisionError };

/** A row of the append functions: one stream's outcome. */
export interface AppendRow {
  outcome: 'ok' | 'idempotent' | 'wrong';
  revision: string | null;
  transaction_id: string | null;
  global_position: string | null;
  /** Only the multi-stream statements that wrote the events report it. */
  recorded_at?: Date | null;
}

/** An expectation as the append functions take it (EventStoreDB's wire constants for the named ones). */
export const expectedCode = (expected: ExpectedRevision): string => {
  switch (expected) {
    case 'no_stream':
      return '-1';
    case 'any':
      return '-2';
    case 'stream_exists':
      return '-4';
    default:
      return expected.toString();
  }
};

const appendStatement = {
  name: 'once_event_store_append',
  text: 'SELECT outcome, revision, transaction_id, global_position FROM event_store_append($1, $2, $3, $4, $5)',
};

/** Events as the append functions take them (JSON). */
export const toPayload = (events: readonly EventToAppend[]) =>
  events.map((event) => ({
    id: event.id,
    type: event.type,
    data: event.data ?? null,
    metadata: event.metadata ?? {},
  }));

/** A retention as `event_store_append` takes it (bigints as strings), or null for none. */
export const toRetentionPayload = (retention: StreamRetention | undefined) =>
  retention === undefined
    ? null
    : 'truncateBefore' in retention
      ? { truncateBefore: retention.truncateBefore.toString() }
      : { maxAgeSeconds: retention.maxAgeSeconds };

/** A row that wrote (or found) a stream's events as a result. */
export const toResult = (row: AppendRow): AppendResult => ({
  nextExpectedRevision: BigInt(row.revision as string),
  position: { commit: BigInt(row.transaction_id as string), prepare: BigInt(row.global_position as string) },
  ...(row.recorded_at === undefined || row.recorded_at === null ? {} : { recordedAt: row.recorded_at }),
});

/**
 * Runs one stream's append as a single statement on `client` (a pool, or a client inside a transaction) and turns
 * the row into a result, or a `WrongExpectedRevisionError` value. A retention given is set in the same statement.
 */
export const appendOnClient = async (
  client: Pick<ClientBase, 'query'>,
  stream: string,
  events: readonly EventToAppend[],
  expectedRevision: ExpectedRevision,
  now: Date | null,
  retention?: StreamRetention,
): Promise<AppendOutcome> => {
  const payload = JSON.stringify(toPayload(events));
  const keep = toRetentionPayload(retention);
  const { rows } = await client.query<AppendRow>({
    ...appendStatement,
    values: [
      stream,
      expectedCode(expectedRevision),
      payload,
      now,
      keep === null ? null : JSON.stringify(keep),
    ],
  });
  const row = rows[0];
  if (row === undefined) throw new Error('event_store_append returned no row');
  return toAppendOutcome(row, stream, expectedRevision);
};

/** What `event_store_append` decided for one stream, from its row. */
export const toAppendOutcome = (
  row: AppendRow,
  stream: string,
  expectedRevision: ExpectedRevision,
): AppendOutcome => {
  if (row.outcome === 'wrong') {
    const actual = row.revision === null ? 'no_stream' : BigInt(row.revision);
    return { kind: 'wrong', error: new WrongExpectedRevisionError(stream, expectedRevision, actual) };
  }
  return { kind: row.outcome, result: toResult(row) };
};

/** One result per append given, from rows that name their append by `ord` (1-based). */
const toResults = (rows: readonly (AppendRow & { ord: number })[], count: number): AppendResult[] => {
  const results = new Array<AppendResult>(count);
  for (const row of rows) results[row.ord - 1] = toResult(row);
  return results;
};

const appendMultiStatement = {
  name: 'once_event_store_append_multi',
  text: 'SELECT ord, outcome, revision, transaction_id, global_position FROM event_store_append_multi($1, $2)',
};

// The common multi-stream append in one plain statement: every stream is new (no_stream) or at the revision given,
// and none of its events is there yet. New heads are inserted in stream-name order, existing heads move by one
// conditional UPDATE, and all events go in one INSERT. When some head did not move (a conflict, a repeat) the
// statement raises through event_store_fast_append_missed, a head that exists already (or a retention-only row)
// stops it at the streams primary key (a plain INSERT: ON CONFLICT DO NOTHING made every new head a speculative
// insertion, one more WAL record and index check per new stream), a repeated event id stops it at UNIQUE (stream,
// event_id), and a lock-order deadlock between two such statements is broken by PostgreSQL; in every case nothing
// of it is kept and event_store_append_multi decides the append in full.
// The heads moved are found through the primary key: `s.stream = ANY (ARRAY(...))` makes the planner probe the
// index for a short list. Joined to `heads` alone, whose rows it cannot count (it guesses 100 for a JSON record
// set), it hashed them and scanned the whole streams table instead: 40 pages at 4,000 streams, growing with every
// key, on every append.
// A guarded write's extra expectation is checked here too: a head with `no_retention` moves only while the stream
// has no retention. Nothing in the parameters tells the planner more than the statement does, so every call runs the
// cached plan.
export const fastAppendMultiStatement = {
  name: 'once_event_store_fast_append_multi',
  types: eventRowTypes,
  text: `WITH heads AS MATERIALIZED (
           SELECT * FROM jsonb_to_recordset($1::jsonb) AS h(
             ord integer, stream text, expected bigint, count bigint, keep boolean,
             max_age_seconds double precision, truncate_before bigint, no_retention boolean)
         ), created AS (
           INSERT INTO streams (stream, revision, max_age_seconds, truncate_before)
           SELECT h.stream, h.count - 1, h.max_age_seconds, h.truncate_before
             FROM heads h WHERE h.expected = -1
            ORDER BY h.stream COLLATE "C"
           RETURNING streams.stream, -1::bigint AS base
         ), moved AS (
           UPDATE streams s
              SET revision = h.expected + h.count,
                  max_age_seconds = CASE WHEN h.keep THEN h.max_age_seconds ELSE s.max_age_seconds END,
                  truncate_before = CASE WHEN h.keep THEN h.truncate_before ELSE s.truncate_before END
             FROM heads h
            WHERE s.stream = ANY (ARRAY(SELECT m.stream FROM heads m WHERE m.expected >= 0))
              AND h.expected >= 0 AND s.stream = h.stream AND s.revision = h.expected
              AND (NOT h.no_retention OR (s.max_age_seconds IS NULL AND s.truncate_before IS NULL))
           RETURNING s.stream, h.expected AS base
         ), inserted AS (
           INSERT INTO events (stream, revision, event_id, type, data, metadata, recorded_at)
           SELECT e.stream, m.base + e.ord, e.id, e.type, e.data, coalesce(e.metadata, '{}'::jsonb),
                  coalesce($3::timestamptz, now())
             FROM jsonb_to_recordset($2::jsonb) AS e(stream text, ord bigint, id uuid, type text, data jsonb, metadata jsonb)
             JOIN (SELECT * FROM created UNION ALL SELECT * FROM moved) m ON m.stream = e.stream
            ORDER BY e.stream COLLATE "C", e.ord
           RETURNING events.stream, events.revision, events.global_position
         ), last AS (
           SELECT i.stream, max(i.revision) AS revision, max(i.global_position) AS global_position
             FROM inserted i GROUP BY i.stream
         )
         SELECT h.ord, coalesce(l.revision, event_store_fast_append_missed()) AS revision,
                pg_current_xact_id()::text AS transaction_id, l.global_position,
                coalesce($3::timestamptz, now()) AS recorded_at
           FROM heads h LEFT JOIN last l ON l.stream = h.stream`,
};

/** Appends the fast statement takes: events on every stream, each new or at a given revision. */
export const suitsFastPath = (appends: readonly StreamAppend[]): boolean =>
  appends.every(
    (append) =>
      append.events.length > 0 &&
      (append.expectedRevision === 'no_stream' || typeof append.expectedRevision === 'bigint'),
  );

const isFastPathMiss = (error: unknown): boolean => {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === 'P0001' && message === 'event_store_fast_append_missed') ||
    code === '23505' || // a repeated event id (or a head created meanwhile)
    isDeadlock(error) // a deadlock with another multi-stream append
  );
};

const fastAppendMulti = async (
  pool: Pick<Pool, 'query'>,
  appends: readonly StreamAppend[],
  now: Date | null,
): Promise<readonly AppendResult[] | undefined> => {
  // Heads in the full function's order (stream names as bytes, COLLATE "C"), so writers lock rows in one order.
  const byName = appends
    .map((append, index) => ({ append, index, name: Buffer.from(append.stream) }))
    .sort((left, right) => Buffer.compare(left.name, right.name));
  const heads = byName.map(({ append, index }) => {
    const keep = toRetentionPayload(append.retention);
    return {
      ord: index + 1,
      stream: append.stream,
      expected: expectedCode(append.expectedRevision),
      count: append.events.length,
      keep: keep !== null,
      max_age_seconds: keep !== null && 'maxAgeSeconds' in keep ? keep.maxAgeSeconds : null,
      truncate_before: keep !== null && 'truncateBefore' in keep ? keep.truncateBefore : null,
      no_retention: append.expectNoRetention === true,
    };
  });
  const events = appends.flatMap((append) =>
    toPayload(append.events).map((event, index) => ({ stream: append.stream, ord: index + 1, ...event })),
  );
  try {
    const { rows } = await pool.query<AppendRow & { ord: number }>({
      ...fastAppendMultiStatement,
      values: [JSON.stringify(heads), JSON.stringify(events), now],
    });
    return toResults(rows, appends.length);
  } catch (error) {
    if (isFastPathMiss(error)) return undefined;
    throw error;
  }
};

/**
 * Appends to several streams in one statement, so in one transaction and one round trip. A wrong revision (or a
 * write that repeats some streams and is new for others) rolls it all back and becomes `WrongExpectedRevisionError`.
 * The common case takes the fast statement first; anything it cannot settle is decided by the full function. A
 * fast-path miss is an error that rolls its statement back, so `pool` must run each statement in its own
 * transaction (a pool, not a client inside BEGIN).
 */
export const appendMultiOnPool = async (
  pool: Pick<Pool, 'query'>,
  appends: readonly StreamAppend[],
  now: Date | null,
): Promise<readonly AppendResult[]> => {
  if (suitsFastPath(appends)) {
    const fast = await fastAppendMulti(pool, appends, now);
    if (fast !== undefined) return fast;
    if (isGuardedWrite(appends)) throw await refusal(pool, appends);
  }
  const payload = JSON.stringify(
    appends.map((append) => ({
      stream: append.stream,
      expected: expectedCode(append.expectedRevision),
      events: toPayload(append.events),
      ...(append.retention === undefined ? {} : { retention: toRetentionPayload(append.retention) }),
    })),
  );
  for (let attempt = 1; ; attempt++) {
    try {
      const { rows } = await pool.query<AppendRow & { ord: number }>({
        ...appendMultiStatement,
        values: [payload, now],
      });
      return toResults(rows, appends.length);
    } catch (error) {
      // A deadlock victim kept nothing: after a pause that lets the other transaction take the row it waited for,
      // the same append runs again (straight after its abort it could take that row first and deadlock again).
      if (isDeadlock(error) && attempt < maxDeadlockAttempts) {
        await pause(attempt * (5 + Math.random() * 20));
        continue;
      }
      throw toWrongExpectedRevision(error, appends) ?? error;
    }
  }
};

/** Why a guarded write the fast statement did not make is refused, from the streams' heads (`guardedWriteRefusal`). */
const refusal = async (
  pool: Pick<Pool, 'query'>,
  appends: readonly StreamAppend[],
): Promise<WrongExpectedRevisionError> => {
  const { rows } = await pool.query<{ stream: string; revision: string }>({
    name: 'once_event_store_heads',
    text: 'SELECT stream, revision FROM streams WHERE stream = ANY ($1::text[]) AND revision >= 0',
    values: [appends.map((append) => append.stream)],
  });
  const heads = new Map(rows.map((row) => [row.stream, BigInt(row.revision)]));
  return guardedWriteRefusal(appends, (stream) => heads.get(stream) ?? 'no_stream');
};

const maxDeadlockAttempts = 5;
const isDeadlock = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === '40P01';
const pause = (milliseconds: number) => new Promise<void>((resolve) => setTimeout(resolve, milliseconds));

const toWrongExpectedRevision = (
  error: unknown,
  appends: readonly StreamAppend[],
): WrongExpectedRevisionError | undefined => {
  const { code, message, detail } = (error ?? {}) as { code?: unknown; message?: unknown; detail?: unknown };
  if (code !== 'P0001' || message !== 'event_store_wrong_expected_revision' || typeof detail !== 'string') {
    return undefined;
  }
  const { index, actual } = JSON.parse(detail) as { index: number; actual: string | null };
  const append = appends[index];
  if (append === undefined) return undefined;
  return new WrongExpectedRevisionError(
    append.stream,
    append.expectedRevision,
    actual === null ? 'no_stream' : BigInt(actual),
  );
};
