import type { AppendResult, RecordedEvent, StreamTail, StreamTailRead } from '@once/event-store';
import type { PlannedWrite, StoredResponse } from '../../key-log/index.js';
import type { StreamSnapshot } from '../command-handler.js';
import type { Decided } from '../planning.js';
import { toSnapshots } from '../planning.js';
import { KeptDecisions, NEW_AGGREGATE_PROBE_EVERY } from './kept-decisions.js';
import { StreamCache } from './stream-cache.js';

/** A first request's decision without a read, and how to append it guarded. */
export interface UnreadAttempt {
  /** Decides the request on `snapshots` (see `decideAndPlan`). */
  decide(snapshots: ReadonlyMap<string, StreamSnapshot>): Decided;
  /**
   * Appends the key's completion with `writes` as if the key were new, guarded (`expectNoRetention` on each write):
   * true when it committed, false when the store refused it.
   */
  appendGuarded(writes: readonly PlannedWrite[], response: StoredResponse): Promise<boolean>;
}

/**
 * The engine's shortcuts around reads, all over the events of aggregates this process keeps, and all optional: an
 * engine without them reads every aggregate whole and decides every request on a read.
 * - Tail reads: an aggregate is read from where its kept events end (`EventStore.readStreamTails`), so a long stream
 *   is not read whole for every decision. Buys: a decision's read costs what was appended since, not the stream.
 * - Decisions without a read: a first request on aggregates kept up to their heads, or unknown to this process
 *   (taken as new), is decided on them with no read and appended guarded (the key stream new, each aggregate still
 *   at its kept head and without retention), so it commits exactly when a read would have found the same; refused,
 *   the request is read and decided again, and where most attempts are refused the engine reads first
 *   (`KeptDecisions`). Buys: a first request costs one statement (the append) instead of two.
 */
export interface ReadShortcuts {
  /** Where to read `stream` from, and the kept events below that revision. */
  tailRead(stream: string): { readonly read: StreamTailRead; readonly kept: readonly RecordedEvent[] };
  /** The whole stream from kept events and the tail read after them; undefined when the kept events no longer stand. */
  merge(
    stream: string,
    kept: readonly RecordedEvent[],
    tail: StreamTail,
  ): readonly RecordedEvent[] | undefined;
  /** Keeps what an atomic append wrote to aggregates (`writes`, answered `results`), where it is known exactly. */
  keepWritten(writes: readonly PlannedWrite[], results: readonly AppendResult[]): void;
  /**
   * Decides a first request on `streams` as kept, with no read, when they are all kept up to their heads or unknown
   * and the odds say try: the stored response when the guarded append committed, undefined when it was not tried,
   * the decision does not write to every aggregate it was made on, or the store refused it (then read and decide).
   */
  decideWithoutRead(streams: readonly string[], attempt: UnreadAttempt): Promise<StoredResponse | undefined>;
}

/** What `createReadShortcuts` takes: whether to decide without a read, and how many aggregates to keep. */
export interface ReadShortcutsOptions {
  /** Decide first requests on kept events with no read (`IdempotencyEngineOptions.decideOnKeptEvents`). */
  readonly decideWithoutRead: boolean;
  /** How many aggregate streams to keep the events of. Default `STREAM_CACHE_SIZE`. */
  readonly streamCacheSize?: number;
  /** How many of their events to keep at most, over all of them. Default `KEPT_EVENTS`. */
  readonly keptEvents?: number;
}

/**
 * The engine's read shortcuts (see `ReadShortcuts`).
 *
 * @param options whether first requests are decided without a read, and how many streams are kept
 * @example
 * const shortcuts = createReadShortcuts({ decideWithoutRead: true });
 * const reads = createKeyLogReads(store, shortcuts);
 */
export const createReadShortcuts = (options: ReadShortcutsOptions): ReadShortcuts => {
  const cache = new StreamCache(options.streamCacheSize, options.keptEvents);
  const keptOdds = new KeptDecisions(options.decideWithoutRead);
  const newOdds = new KeptDecisions(options.decideWithoutRead, NEW_AGGREGATE_PROBE_EVERY);

  /** The aggregates as kept (or new), and the odds the attempt is recorded in; undefined to read first. */
  const unread = (streams: readonly string[]) => {
    const unique = [...new Set(streams)];
    const events: (readonly RecordedEvent[])[] = [];
    let assumedNew = false;
    for (const stream of unique) {
      const kept = cache.current(stream);
      if (kept === undefined && cache.knows(stream)) return undefined;
      assumedNew ||= kept === undefined;
      events.push(kept ?? []);
    }
    const odds = assumedNew ? newOdds : keptOdds;
    return odds.shouldTry() ? { snapshots: toSnapshots(unique, events), odds } : undefined;
  };

  return {
    tailRead: (stream) => cache.tailRead(stream),
    merge: (stream, kept, tail) => cache.merge(stream, kept, tail),
    keepWritten: (writes, results) => {
      writes.forEach((write, index) => cache.wrote(write.stream, writtenExactly(write, results[index])));
    },
    decideWithoutRead: async (streams, attempt) => {
      const guess = unread(streams);
      if (guess === undefined) return undefined;
      const decided = attempt.decide(guess.snapshots);
      if (decided.kind !== 'accept' || !writesEvery(decided.writes, guess.snapshots)) return undefined;
      const committed = await attempt.appendGuarded(decided.writes, decided.response);
      guess.odds.record(!committed);
      return committed ? decided.response : undefined;
    },
  };
};

/** True when a decision writes to every aggregate it was made on (so its guarded append checks each one's head). */
const writesEvery = (
  writes: readonly { readonly stream: string }[],
  snapshots: ReadonlyMap<string, unknown>,
): boolean => [...snapshots.keys()].every((stream) => writes.some((write) => write.stream === stream));

/** A value as the store gives it back: JSON (a kept event carries what a read of it would). */
const asStored = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

/**
 * A write's event as a read would return it, when that is known exactly: one event, and the store said when it was
 * recorded.
 */
const writtenExactly = (
  write: PlannedWrite,
  result: AppendResult | undefined,
): readonly RecordedEvent[] | undefined => {
  const [event] = write.events;
  if (result?.recordedAt === undefined || event === undefined || write.events.length !== 1) return undefined;
  return [
    {
      id: event.id,
      stream: write.stream,
      revision: result.nextExpectedRevision,
      type: event.type,
      data: asStored(event.data ?? null),
      metadata: asStored(event.metadata ?? {}) as Record<string, unknown>,
      position: result.position,
      recordedAt: result.recordedAt,
    },
  ];
};
