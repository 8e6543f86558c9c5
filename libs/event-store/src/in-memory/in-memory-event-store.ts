import type {
  AppendResult,
  EventStore,
  EventToAppend,
  ExpectedRevision,
  GlobalPosition,
  ReadAllBatch,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamAppend,
  StreamTail,
  StreamTailRead,
  StreamRetention,
  StreamRevision,
  SubscribeOptions,
  Subscription,
} from '../port/index.js';
import { UnsupportedOperationError, WrongExpectedRevisionError, comparePositions } from '../port/index.js';
import {
  assertValidAppend,
  assertValidMultiAppend,
  guardedWriteRefusal,
  isGuardedWrite,
} from '../port/append-validation.js';
import { assertValidRetention, isExpired } from '../retention/index.js';
import { createSubscriptionRegistry, subscribeByPolling } from '../subscription/index.js';
import type { CommitDecision, StreamForCheck } from './commit-check.js';
import { checkCommit } from './commit-check.js';
import { RecentEventIds } from './recent-event-ids.js';

export interface InMemoryEventStoreOptions {
  /**
   * Offer an atomic `appendMulti` over the in-memory maps (as the PostgreSQL adapter does), so code can be tested
   * under both protocols. Default false: like EventStoreDB 6.x, `appendMulti` throws `UnsupportedOperationError`.
   */
  readonly atomicMultiStreamAppend?: boolean;
  /** How many recent event ids `any` / `stream_exists` deduplicate against (EventStoreDB: ~60-90k). Default 75,000. */
  readonly recentEventIdCapacity?: number;
  /** The clock for `recordedAt` and `maxAgeSeconds`. Default `() => new Date()`. */
  readonly now?: () => Date;
}

interface StreamState {
  /** Events still stored (expired but unscavenged included), ascending by revision, without gaps. */
  events: RecordedEvent[];
  current: StreamRevision | -1n;
  retention: StreamRetention | undefined;
}

const defaultRecentEventIdCapacity = 75_000;
const defaultReadAllMaxCount = 1_000;
const emptyPosition: GlobalPosition = { commit: 0n, prepare: 0n };

/**
 * An event store in process memory that follows EventStoreDB's rules exactly, weak spots included: an idempotent
 * re-append needs the original explicit expectation, the same ids at the current head are written again, and `any`
 * deduplicates only ids still in a bounded first-in-first-out cache. Tests of code above the store run against it,
 * so that code is correct on the weakest store.
 *
 * @param options multi-stream atomicity, the recent-id cache size, the clock
 * @example
 * const store = createInMemoryEventStore();
 * await store.appendToStream('invoice-1', [{ id: crypto.randomUUID(), type: 'InvoiceIssued', data: {} }], {
 *   expectedRevision: 'no_stream',
 * });
 */
export const createInMemoryEventStore = (options: InMemoryEventStoreOptions = {}): EventStore => {
  const now = options.now ?? (() => new Date());
  const atomicMultiStreamAppend = options.atomicMultiStreamAppend ?? false;
  const recent = new RecentEventIds(options.recentEventIdCapacity ?? defaultRecentEventIdCapacity);
  const streams = new Map<string, StreamState>();
  let log: RecordedEvent[] = [];
  let lastSequence = 0n;
  // Which write (one appendToStream or appendMulti call) each logged event came from: a global read never ends a
  // page inside one (the port's promise), as PostgreSQL never ends one inside a transaction.
  let currentWrite = 0;
  const writeOf = new WeakMap<RecordedEvent, number>();
  let closed = false;
  const appendListeners = new Set<() => void>();
  const subscriptions = createSubscriptionRegistry();

  const assertOpen = (): void => {
    if (closed) throw new Error('the event store is closed');
  };

  const forCheck = (stream: string): StreamForCheck => {
    const state = streams.get(stream);
    return {
      stream,
      current: state?.current ?? -1n,
      eventAt: (revision) => (state ? eventAt(state, revision) : undefined),
    };
  };

  const decide = (
    stream: string,
    events: readonly EventToAppend[],
    expected: ExpectedRevision,
  ): CommitDecision => {
    if (events.length > 0)
      return checkCommit(
        forCheck(stream),
        expected,
        events.map((event) => event.id),
        recent,
      );
    const current = streams.get(stream)?.current ?? -1n;
    const holds =
      expected === 'any' ||
      (expected === 'no_stream' && current < 0n) ||
      (expected === 'stream_exists' && current >= 0n) ||
      expected === current;
    return holds
      ? { kind: 'write', current }
      : { kind: 'wrong-expected-revision', actual: current < 0n ? 'no_stream' : current };
  };

  const write = (
    stream: string,
    events: readonly EventToAppend[],
    current: StreamRevision | -1n,
  ): AppendResult => {
    const state = streams.get(stream) ?? { events: [], current: -1n, retention: undefined };
    streams.set(stream, state);
    const recordedAt = now();
    let position = state.events.at(-1)?.position ?? emptyPosition;
    let revision = current;
    for (const event of events) {
      revision += 1n;
      lastSequence += 1n;
      position = { commit: lastSequence, prepare: lastSequence };
      const recorded: RecordedEvent = {
        id: event.id,
        stream,
        revision,
        type: event.type,
        data: structuredClone(event.data ?? null),
        metadata: structuredClone(event.metadata ?? {}),
        position,
        recordedAt: new Date(recordedAt.getTime()),
      };
      state.events.push(recorded);
      log.push(recorded);
      writeOf.set(recorded, currentWrite);
      recent.remember(event.id, { stream, revision, position });
    }
    state.current = revision;
    return { nextExpectedRevision: revision, position, recordedAt: new Date(recordedAt.getTime()) };
  };

  const settle = (
    stream: string,
    events: readonly EventToAppend[],
    expected: ExpectedRevision,
    decision: CommitDecision,
  ): AppendResult => {
    switch (decision.kind) {
      case 'write':
        return write(stream, events, decision.current);
      case 'idempotent': {
        const state = streams.get(stream);
        const last = state === undefined ? undefined : eventAt(state, decision.lastRevision);
        return {
          nextExpectedRevision: decision.lastRevision,
          position: decision.position,
          ...(last === undefined ? {} : { recordedAt: new Date(last.recordedAt.getTime()) }),
        };
      }
      case 'wrong-expected-revision':
        throw new WrongExpectedRevisionError(stream, expected, decision.actual);
      default: {
        const _exhaustive: never = decision;
        return _exhaustive;
      }
    }
  };

  const notifyAppend = (): void => {
    const listeners = [...appendListeners];
    appendListeners.clear();
    for (const listener of listeners) listener();
  };

  const keepFor = (stream: string, retention: StreamRetention): void => {
    const state = streams.get(stream) ?? { events: [], current: -1n, retention: undefined };
    state.retention = { ...retention };
    streams.set(stream, state);
  };

  const appendToStream: EventStore['appendToStream'] = async (
    stream,
    events,
    { expectedRevision, retention },
  ) => {
    assertOpen();
    assertValidAppend(stream, events, expectedRevision);
    if (retention !== undefined) assertValidRetention(retention);
    currentWrite += 1;
    const result = settle(stream, events, expectedRevision, decide(stream, events, expectedRevision));
    // Same synchronous turn as the write: no other call sees the events without their retention.
    if (retention !== undefined) keepFor(stream, retention);
    notifyAppend();
    return result;
  };

  const appendMulti = async (appends: readonly StreamAppend[]): Promise<readonly AppendResult[]> => {
    assertOpen();
    if (!atomicMultiStreamAppend) {
      throw new UnsupportedOperationError(
        'appendMulti (create the in-memory store with atomicMultiStreamAppend)',
      );
    }
    assertValidMultiAppend(appends);
    for (const append of appends) if (append.retention !== undefined) assertValidRetention(append.retention);
    if (isGuardedWrite(appends)) refuseUnlessGuardsHold(appends);
    const decisions = appends.map((append) => decide(append.stream, append.events, append.expectedRevision));
    const failed = decisions.findIndex((decision) => decision.kind === 'wrong-expected-revision');
    if (failed >= 0) {
      const append = appends[failed] as StreamAppend;
      settle(append.stream, append.events, append.expectedRevision, decisions[failed] as CommitDecision);
    }
    const writes = appends.filter(
      (append, index) => decisions[index]?.kind === 'write' && append.events.length > 0,
    );
    const idempotent = decisions.findIndex((decision) => decision.kind === 'idempotent');
    if (idempotent >= 0 && writes.length > 0) {
      // KurrentDB: a multi-stream write is idempotent only when every stream is; a mix is a consistency failure.
      const append = appends[idempotent] as StreamAppend;
      const current = streams.get(append.stream)?.current ?? -1n;
      throw new WrongExpectedRevisionError(
        append.stream,
        append.expectedRevision,
        current < 0n ? 'no_stream' : current,
      );
    }
    currentWrite += 1;
    const results = appends.map((append, index) =>
      settle(append.stream, append.events, append.expectedRevision, decisions[index] as CommitDecision),
    );
    for (const append of appends)
      if (append.retention !== undefined) keepFor(append.stream, append.retention);
    notifyAppend();
    return results;
  };

  /** A guarded write is made only as a new write whose every expectation holds (see `EventStore.appendMulti`). */
  const refuseUnlessGuardsHold = (appends: readonly StreamAppend[]): void => {
    const actualOf = (stream: string) => streams.get(stream)?.current ?? -1n;
    const atExpected = (append: StreamAppend) =>
      append.expectedRevision === 'no_stream'
        ? actualOf(append.stream) < 0n
        : actualOf(append.stream) === append.expectedRevision;
    const holds = (append: StreamAppend) => {
      const ids = new Set(append.events.map((event) => event.id));
      return (
        atExpected(append) &&
        !(streams.get(append.stream)?.events.some((event) => ids.has(event.id)) ?? false) &&
        (append.expectNoRetention !== true || streams.get(append.stream)?.retention === undefined)
      );
    };
    if (appends.every(holds)) return;
    throw guardedWriteRefusal(appends, (stream) => {
      const actual = actualOf(stream);
      return actual < 0n ? 'no_stream' : actual;
    });
  };

  const readStream = async (
    stream: string,
    readOptions: ReadStreamOptions = {},
  ): Promise<readonly RecordedEvent[]> => {
    assertOpen();
    const state = streams.get(stream);
    if (state === undefined) return [];
    const direction = readOptions.direction ?? 'forwards';
    const from = readOptions.fromRevision ?? (direction === 'forwards' ? 'start' : 'end');
    const maxCount = readOptions.maxCount ?? Number.POSITIVE_INFINITY;
    const at = now();
    const visible = state.events.filter((event) => !isExpired(event, state.retention, at));
    const selected =
      direction === 'forwards'
        ? visible.filter((event) => from === 'start' || (from !== 'end' && event.revision >= from))
        : visible.filter((event) => from === 'end' || (from !== 'start' && event.revision <= from)).reverse();
    return selected.slice(0, Math.max(0, maxCount)).map(copyEvent);
  };

  const headOf = (stream: string): StreamRevision | undefined => {
    const current = streams.get(stream)?.current ?? -1n;
    return current < 0n ? undefined : current;
  };

  const readStreamTails = async (reads: readonly StreamTailRead[]): Promise<readonly StreamTail[]> => {
    assertOpen();
    const at = now();
    return reads.map((read): StreamTail => {
      if (read.unlessExists !== undefined && headOf(read.unlessExists) !== undefined) {
        return { events: [], head: undefined, retained: false, skipped: true };
      }
      const state = streams.get(read.stream);
      if (state === undefined) return { events: [], head: undefined, retained: false };
      const events = state.events
        .filter((event) => event.revision >= read.fromRevision && !isExpired(event, state.retention, at))
        .map(copyEvent);
      return { events, head: headOf(read.stream), retained: state.retention !== undefined };
    });
  };

  const readAll = async (readOptions: ReadAllOptions = {}): Promise<ReadAllBatch> => {
    assertOpen();
    const maxCount = readOptions.maxCount ?? defaultReadAllMaxCount;
    const { after, filter } = readOptions;
    const at = now();
    const events: RecordedEvent[] = [];
    let checkpoint = after;
    let index = after === undefined ? 0 : firstIndexAfter(log, after);
    let pageWrite: number | undefined;
    const insidePage = (event: RecordedEvent): boolean =>
      events.length < maxCount || (pageWrite !== undefined && writeOf.get(event) === pageWrite);
    for (; index < log.length && insidePage(log[index] as RecordedEvent); index += 1) {
      const event = log[index] as RecordedEvent;
      pageWrite = writeOf.get(event);
      checkpoint = event.position;
      if (isExpired(event, streams.get(event.stream)?.retention, at)) continue;
      if (filter?.eventTypes && !filter.eventTypes.includes(event.type)) continue;
      if (filter?.streamPrefixes && !filter.streamPrefixes.some((prefix) => event.stream.startsWith(prefix)))
        continue;
      events.push(copyEvent(event));
    }
    return { events, checkpoint, caughtUp: index >= log.length };
  };

  const subscribeToAll = (subscribeOptions: SubscribeOptions): Subscription => {
    assertOpen();
    return subscriptions.track(
      subscribeByPolling(readAll, subscribeOptions, {
        onNextAppend: (listener) => {
          appendListeners.add(listener);
          return () => appendListeners.delete(listener);
        },
      }),
    );
  };

  const setStreamRetention = async (stream: string, retention: StreamRetention): Promise<void> => {
    assertOpen();
    assertValidRetention(retention);
    keepFor(stream, retention);
  };

  const scavenge = async (): Promise<{ readonly removedEvents: number }> => {
    assertOpen();
    const at = now();
    const removed = new Set<RecordedEvent>();
    for (const state of streams.values()) {
      const kept: RecordedEvent[] = [];
      for (const event of state.events) {
        if (isExpired(event, state.retention, at)) removed.add(event);
        else kept.push(event);
      }
      state.events = kept;
    }
    if (removed.size > 0) log = log.filter((event) => !removed.has(event));
    return { removedEvents: removed.size };
  };

  const close = async (): Promise<void> => {
    await subscriptions.stopAll();
    closed = true;
    notifyAppend();
  };

  return {
    capabilities: { atomicMultiStreamAppend, strictIdempotentAppend: false },
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

const eventAt = (state: StreamState, revision: StreamRevision): RecordedEvent | undefined => {
  const first = state.events[0];
  if (first === undefined || revision < first.revision) return undefined;
  const event = state.events[Number(revision - first.revision)];
  return event?.revision === revision ? event : undefined;
};

const firstIndexAfter = (log: readonly RecordedEvent[], after: GlobalPosition): number => {
  let low = 0;
  let high = log.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (comparePositions((log[middle] as RecordedEvent).position, after) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
};

const copyEvent = (event: RecordedEvent): RecordedEvent => ({
  ...event,
  data: structuredClone(event.data),
  metadata: structuredClone(event.metadata),
  recordedAt: new Date(event.recordedAt.getTime()),
});
