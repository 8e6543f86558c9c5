import type { Pool } from 'pg';
import type {
  AppendResult,
  EventStore,
  ReadAllBatch,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamAppend,
  StreamRetention,
  StreamTail,
  StreamTailRead,
  SubscribeOptions,
  Subscription,
} from '../port/index.js';
import { assertValidAppend, assertValidMultiAppend } from '../port/append-validation.js';
import { assertValidRetention } from '../retention/index.js';
import { createSubscriptionRegistry, subscribeByPolling } from '../subscription/index.js';
import { migrateEventStore } from './event-store-migrations.js';
import { keepingConnections } from './keeping-connections.js';
import type { AppendOutcome } from './postgres-append.js';
import { appendMultiOnPool, appendOnClient, suitsFastPath } from './postgres-append.js';
import { coalescingReads } from './coalesced-reads.js';
import type { SharedAnswer, SharedAppend } from './shared-append.js';
import { appendTogether } from './shared-append.js';
import { sharingCommits } from './shared-commits.js';
import { readAllRows, readStreamRows, readStreamTailsRows } from './postgres-read.js';

export interface PostgresEventStoreOptions {
  /** Apply the schema migrations before the first operation. Default true. */
  readonly migrate?: boolean;
  /** Clock for `recordedAt` and age-based retention. Default: the database's `now()`. */
  readonly now?: () => Date;
  /** Events per global read when the caller gives no `maxCount`. Default 1,000. */
  readonly readBatchSize?: number;
  /**
   * Send the tail reads asked for in one turn of the event loop as one statement (`coalescingReads`). Default true;
   * false sends each call as a statement of its own.
   */
  readonly coalesceReads?: boolean;
  /**
   * Send the appends (one stream, or several atomically) that reach the store in one turn of the event loop as one
   * statement, committed together, each with its own outcome (`sharingCommits`). Default true; false sends each
   * append as a statement and a commit of its own.
   */
  readonly shareCommits?: boolean;
  /**
   * How long, in microseconds, a batch of appends stays open past its turn while other appends are being written,
   * so that more can join its commit. Default 0: the turn only. An append that finds no other in flight never waits.
   */
  readonly shareCommitsWaitMicroseconds?: number;
}

/** The most streams one coalesced tail read lists; a call with more is sent alone. */
const maxCoalescedReads = 64;

/** The most appends that share one statement; more wait for the next. */
const maxSharedAppends = 32;

/**
 * An event store in PostgreSQL. Each append is one statement (a plpgsql function) that locks the stream row;
 * `UNIQUE (stream, event_id)` makes re-appends exactly-once under every expectation; `appendMulti` is one
 * transaction; the global read follows `(transaction_id, global_position)` below the oldest running transaction,
 * so no reader skips an event that commits late. Appends that reach the store in one turn of the event loop share
 * one statement and one commit, each with its own outcome (`shareCommits`).
 *
 * @param pool the database (the pool stays the caller's: `close` does not end it)
 * @param options migrations on start, clock, read batch size, coalesced reads, shared commits
 * @example
 * const store = createPostgresEventStore(new pg.Pool({ connectionString }));
 * await store.appendToStream('invoice-1', [{ id: crypto.randomUUID(), type: 'InvoiceIssued', data: {} }], {
 *   expectedRevision: 'no_stream',
 * });
 */
export const createPostgresEventStore = (pool: Pool, options: PostgresEventStoreOptions = {}): EventStore => {
  const readBatchSize = options.readBatchSize ?? 1_000;
  const waitMicroseconds = options.shareCommitsWaitMicroseconds ?? 0;
  if (!Number.isFinite(waitMicroseconds) || waitMicroseconds < 0) {
    throw new RangeError('shareCommitsWaitMicroseconds must be a finite number >= 0');
  }
  // Writes through `keepingConnections`, since an append may fail by design; reads, which do not, straight through
  // the pool.
  const writes = keepingConnections(pool);
  const clock = options.now;
  const now = (): Date | null => (clock ? clock() : null);
  const ready: Promise<unknown> = options.migrate === false ? Promise.resolve() : migrateEventStore(pool);
  ready.catch(() => undefined);
  let closed = false;
  const subscriptions = createSubscriptionRegistry();

  const whenReady = async (): Promise<void> => {
    if (closed) throw new Error('the event store is closed');
    await ready;
  };

  const settle = (outcome: AppendOutcome): AppendResult => {
    if (outcome.kind === 'wrong') throw outcome.error;
    return outcome.result;
  };

  const appendAlone = async (append: SharedAppend, at: Date | null): Promise<SharedAnswer> => {
    if (append.kind === 'multi') {
      const results = await retryOnceOnDuplicateEventId(() => appendMultiOnPool(writes, append.appends, at));
      return { kind: 'multi', results };
    }
    const { stream, events, expectedRevision, retention } = append;
    const outcome = await retryOnceOnDuplicateEventId(() =>
      appendOnClient(writes, stream, events, expectedRevision, at, retention),
    );
    return { kind: 'one', outcome };
  };
  const sharedAppend =
    options.shareCommits === false
      ? undefined
      : sharingCommits<SharedAppend, SharedAnswer>(
          (appends, at) => appendTogether(writes, appends, at),
          appendAlone,
          {
            maxAppends: maxSharedAppends,
            waitMicroseconds,
          },
        );

  const appendToStream: EventStore['appendToStream'] = async (
    stream,
    events,
    { expectedRevision, retention },
  ) => {
    assertValidAppend(stream, events, expectedRevision);
    if (retention !== undefined) assertValidRetention(retention);
    await whenReady();
    const append: SharedAppend = { kind: 'one', stream, events, expectedRevision, retention };
    const answer = await (sharedAppend ?? appendAlone)(append, now());
    if (answer.kind !== 'one') throw new Error('a one-stream append was answered as a multi-stream one');
    return settle(answer.outcome);
  };

  const appendMulti = async (appends: readonly StreamAppend[]): Promise<readonly AppendResult[]> => {
    assertValidMultiAppend(appends);
    for (const append of appends) if (append.retention !== undefined) assertValidRetention(append.retention);
    await whenReady();
    // Only writes the shared statement can make in one pass share it; the others are decided alone, in full.
    const send = sharedAppend !== undefined && suitsFastPath(appends) ? sharedAppend : appendAlone;
    const answer = await send({ kind: 'multi', appends }, now());
    if (answer.kind !== 'multi') throw new Error('a multi-stream append was answered as a one-stream one');
    return answer.results;
  };

  const readStream = async (
    stream: string,
    readOptions: ReadStreamOptions = {},
  ): Promise<readonly RecordedEvent[]> => {
    await whenReady();
    return readStreamRows(pool, stream, readOptions, now());
  };

  const sendTailReads = (reads: readonly StreamTailRead[], at: Date | null): Promise<readonly StreamTail[]> =>
    readStreamTailsRows(pool, reads, at);
  const tailReads =
    options.coalesceReads === false ? sendTailReads : coalescingReads(sendTailReads, maxCoalescedReads);

  const readStreamTails = async (reads: readonly StreamTailRead[]): Promise<readonly StreamTail[]> => {
    await whenReady();
    return reads.length === 0 ? [] : tailReads(reads, now());
  };

  const readAll = async (readOptions: ReadAllOptions = {}): Promise<ReadAllBatch> => {
    await whenReady();
    return readAllRows(pool, readOptions, readBatchSize, now());
  };

  const subscribeToAll = (subscribeOptions: SubscribeOptions): Subscription =>
    subscriptions.track(subscribeByPolling(readAll, subscribeOptions));

  const setStreamRetention = async (stream: string, retention: StreamRetention): Promise<void> => {
    assertValidRetention(retention);
    await whenReady();
    const [maxAge, truncateBefore] =
      'truncateBefore' in retention
        ? [null, retention.truncateBefore.toString()]
        : [retention.maxAgeSeconds, null];
    // On the stream's row; a stream without events yet gets a row at revision -1 that only carries the retention.
    await writes.query(
      `INSERT INTO streams (stream, revision, max_age_seconds, truncate_before) VALUES ($1, -1, $2, $3)
       ON CONFLICT (stream) DO UPDATE SET max_age_seconds = excluded.max_age_seconds, truncate_before = excluded.truncate_before`,
      [stream, maxAge, truncateBefore],
    );
  };

  const scavenge = async (): Promise<{ readonly removedEvents: number }> => {
    await whenReady();
    // Streams rows stay: a stream's revision outlives its events, as in EventStoreDB, so expectations keep working.
    const { rows } = await writes.query<{ removed: string }>(
      `WITH removed AS (
         DELETE FROM events e USING streams r
          WHERE e.stream = r.stream
            AND (r.truncate_before IS NOT NULL OR r.max_age_seconds IS NOT NULL)
            AND (e.revision < r.truncate_before
                 OR e.recorded_at < coalesce($1::timestamptz, now()) - make_interval(secs => r.max_age_seconds))
         RETURNING 1)
       SELECT count(*) AS removed FROM removed`,
      [now()],
    );
    return { removedEvents: Number(rows[0]?.removed ?? 0) };
  };

  const close = async (): Promise<void> => {
    await subscriptions.stopAll();
    closed = true;
    await ready.catch(() => undefined);
  };

  return {
    capabilities: { atomicMultiStreamAppend: true, strictIdempotentAppend: true },
    appendToStream,
    appendMulti,
    readStream,
    readStreamTails,
    readAll,
    subscribeToAll,
    setStreamRetention,
    scavenge,
    close,
  };
};

/**
 * A re-append that races its original past the append's unlocked id probe is stopped by UNIQUE (stream, event_id)
 * and nothing of it is kept; run once more, the locked path answers it (the original result or a wrong revision).
 */
const retryOnceOnDuplicateEventId = async <T>(attempt: () => Promise<T>): Promise<T> => {
  try {
    return await attempt();
  } catch (error) {
    if (isDuplicateEventId(error)) return attempt();
    throw error;
  }
};

const isDuplicateEventId = (error: unknown): boolean =>
  typeof error === 'object' &&
  error !== null &&
  (error as { code?: unknown }).code === '23505' &&
  (error as { constraint?: unknown }).constraint === 'events_stream_event_id';
