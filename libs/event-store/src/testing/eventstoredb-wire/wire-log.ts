import { createInMemoryEventStore } from '../../in-memory/index.js';
import { comparePositions } from '../../port/index.js';
import { isExpired } from '../../retention/index.js';
import type {
  AppendResult,
  ExpectedRevision,
  GlobalPosition,
  RecordedEvent,
  StreamRetention,
  StreamRevision,
} from '../../port/index.js';

/** An event as it travels on the wire: the client's bytes, kept as they came. */
export interface WireEvent {
  readonly id: string;
  readonly type: string;
  readonly contentType: string;
  readonly data: Uint8Array;
  readonly customMetadata: Uint8Array;
}

/** A stored wire event with its place in its stream and in the log. */
export interface LoggedEvent extends WireEvent {
  readonly stream: string;
  readonly revision: StreamRevision;
  readonly position: GlobalPosition;
  readonly created: Date;
}

export interface WireLogOptions {
  /** The clock for `created` and `$maxAge`. Default `() => new Date()`. */
  readonly now?: () => Date;
}

const metastreamPrefix = '$$';
const keepEverything: StreamRetention = { truncateBefore: 0n };
const decoder = new TextDecoder();

/**
 * A stream's retention from its `$metadata` event, as EventStoreDB reads it: `$tb` (truncate before) or `$maxAge`
 * (seconds). A metadata event without either clears what an earlier one set.
 */
const retentionOf = (event: WireEvent): StreamRetention => {
  let metadata: Record<string, unknown> = {};
  try {
    metadata = JSON.parse(decoder.decode(event.data)) as Record<string, unknown>;
  } catch {
    // EventStoreDB ignores metadata it cannot parse.
  }
  const truncateBefore = metadata['$tb'];
  if (typeof truncateBefore === 'number' && Number.isInteger(truncateBefore) && truncateBefore >= 0)
    return { truncateBefore: BigInt(truncateBefore) };
  const maxAge = metadata['$maxAge'];
  if (typeof maxAge === 'number' && maxAge >= 0) return { maxAgeSeconds: maxAge };
  return { truncateBefore: 0n };
};

const toWireEvent = (recorded: RecordedEvent): LoggedEvent => ({
  id: recorded.id,
  type: recorded.type,
  contentType: String(recorded.metadata['contentType']),
  data: recorded.data as Uint8Array,
  customMetadata: recorded.metadata['customMetadata'] as Uint8Array,
  stream: recorded.stream,
  revision: recorded.revision,
  position: recorded.position,
  created: recorded.recordedAt,
});

/**
 * The test server's storage: the in-memory event store, which decides every append by EventStoreDB's commit check
 * (expected revisions, idempotent repeats by event id, the recent-id cache for `any`), plus what the wire needs on
 * top: which streams exist, stream metadata written as `$metadata` events to `$$stream`, and a signal on each write
 * for subscriptions. The in-memory store numbers events 1, 2, 3… with commit = prepare, the shape EventStoreDB's
 * `$all` positions have for single-stream appends (each event at its own log position).
 */
export const createWireLog = (options: WireLogOptions = {}) => {
  const now = options.now ?? (() => new Date());
  const store = createInMemoryEventStore({ now });
  const existing = new Set<string>();
  // Each stream's retention from its metadata: stream reads honour it at once, `$all` only once a scavenge ran.
  const retentions = new Map<string, StreamRetention>();
  const listeners = new Set<() => void>();
  let head: GlobalPosition | undefined;
  let writes = 0;

  const append = async (
    stream: string,
    events: readonly WireEvent[],
    expectedRevision: ExpectedRevision,
  ): Promise<AppendResult> => {
    const result = await store.appendToStream(
      stream,
      events.map((event) => ({
        id: event.id,
        type: event.type,
        data: event.data,
        metadata: { contentType: event.contentType, customMetadata: event.customMetadata },
      })),
      { expectedRevision },
    );
    if (events.length > 0) existing.add(stream);
    if (events.length > 0 && (head === undefined || comparePositions(result.position, head) > 0))
      head = result.position;
    writes += 1;
    const metadata = events.findLast((event) => event.type === '$metadata');
    if (stream.startsWith(metastreamPrefix) && metadata)
      retentions.set(stream.slice(metastreamPrefix.length), retentionOf(metadata));
    for (const listener of [...listeners]) listener();
    return result;
  };

  /** Reads one stream as EventStoreDB does; `undefined` when the stream was never written (StreamNotFound). */
  const readStream = async (
    stream: string,
    read: {
      readonly direction: 'forwards' | 'backwards';
      readonly from: StreamRevision | 'start' | 'end';
      readonly maxCount: number;
    },
  ): Promise<readonly LoggedEvent[] | undefined> => {
    if (!existing.has(stream)) return undefined;
    const events = await store.readStream(stream, { direction: read.direction, fromRevision: read.from });
    const at = now();
    const retention = retentions.get(stream);
    return events
      .filter((event) => !isExpired(event, retention, at))
      .slice(0, read.maxCount)
      .map(toWireEvent);
  };

  /**
   * Up to `maxCount` events of `$all` strictly after `after` (from the start when undefined), expired events
   * included until a scavenge removes them (as EventStoreDB keeps them), where the next page starts, and whether the
   * log ends there.
   */
  const readAllAfter = async (
    after: GlobalPosition | undefined,
    maxCount: number,
  ): Promise<{ events: readonly LoggedEvent[]; next: GlobalPosition | undefined; end: boolean }> => {
    const page = await store.readAll({ ...(after ? { after } : {}), maxCount });
    // The in-memory store finishes a page at the end of a write; EventStoreDB counts events only.
    const events = page.events.slice(0, maxCount).map(toWireEvent);
    const cut = events.length < page.events.length;
    return {
      events,
      next: cut ? events.at(-1)?.position : page.checkpoint,
      end: page.caughtUp && !cut,
    };
  };

  /** Calls `listener` after every append until the returned function is called. */
  const onAppend = (listener: () => void): (() => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };

  return {
    append,
    readStream,
    readAllAfter,
    onAppend,
    /** The position of the last event in the log, undefined while it is empty. */
    head: (): GlobalPosition | undefined => head,
    /** How many appends the log has answered: a subscription waits only when this has not moved since it read. */
    writes: (): number => writes,
    /**
     * A scavenge: the events retention expired leave the log, `$all` included, and no longer count as earlier
     * writes of their ids; their streams keep their revisions.
     */
    scavenge: async (): Promise<void> => {
      for (const [stream, retention] of retentions) await store.setStreamRetention(stream, retention);
      await store.scavenge();
      // The store hides nothing on its own: `$all` shows every event until the next scavenge, as on the server.
      for (const stream of retentions.keys()) await store.setStreamRetention(stream, keepEverything);
    },
    close: () => store.close(),
  };
};

export type WireLog = ReturnType<typeof createWireLog>;

/**
 * The last position strictly before the first event a forwards read of `$all` from `position` includes (EventStoreDB
 * reads from a position inclusively): `(c, p)` includes the event at `c` when `p <= c`, the next one otherwise.
 */
export const positionBefore = (position: GlobalPosition): GlobalPosition | undefined => {
  const first = position.prepare <= position.commit ? position.commit : position.commit + 1n;
  return first <= 1n ? undefined : { commit: first - 1n, prepare: first - 1n };
};

/** The position just past an event's, as EventStoreDB reports the end of a scan: the next log position, prepare 0. */
export const positionPast = (position: GlobalPosition): GlobalPosition => ({
  commit: position.commit + 1n,
  prepare: 0n,
});
