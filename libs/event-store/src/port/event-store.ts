/** A revision is the 0-based number of an event within its stream. */
export type StreamRevision = bigint;

/** What the writer expects the stream's last revision to be. */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | StreamRevision;

/** An event to append. `id` must be a UUID; the same id appended again is how a retry is recognised. */
export interface EventToAppend<Type extends string = string, Data = unknown> {
  readonly id: string;
  readonly type: Type;
  readonly data: Data;
  readonly metadata?: Record<string, unknown>;
}

/**
 * A place in the global order of all events. Adapters encode it as an opaque, totally ordered pair:
 * PostgreSQL uses `(transaction id, global position)`, EventStoreDB `(commit, prepare)`.
 * Compare with `comparePositions`, never by one half alone.
 */
export interface GlobalPosition {
  readonly commit: bigint;
  readonly prepare: bigint;
}

/** An event as stored. */
export interface RecordedEvent<Type extends string = string, Data = unknown> {
  readonly id: string;
  readonly stream: string;
  readonly revision: StreamRevision;
  readonly type: Type;
  readonly data: Data;
  readonly metadata: Record<string, unknown>;
  readonly position: GlobalPosition;
  readonly recordedAt: Date;
}

/** The outcome of a successful append (or of an idempotent re-append: then the original write's result). */
export interface AppendResult {
  /** Revision of the last event of this write: pass it as `expectedRevision` to append after it. */
  readonly nextExpectedRevision: StreamRevision;
  readonly position: GlobalPosition;
  /**
   * The `recordedAt` this write's events read with, where the store reports it (PostgreSQL, for a multi-stream write
   * made by its one common statement; in-memory, for every write it makes). With it, and one event per stream, a writer knows the event as a read would
   * return it.
   */
  readonly recordedAt?: Date;
}

export interface AppendOptions {
  readonly expectedRevision: ExpectedRevision;
  /**
   * Sets this stream's retention in the same atomic write (as `setStreamRetention` would, replacing any earlier
   * setting), whenever the append succeeds, an idempotent repeat included; a failed append sets nothing.
   * PostgreSQL and in-memory: one atomic write. EventStoreDB: stream metadata, a write of its own; for a stream's
   * first write (`no_stream`) it goes first, so no event is ever stored without it (a crash between the two leaves
   * metadata for a stream with no events), and after the events otherwise.
   */
  readonly retention?: StreamRetention;
}

/** One stream's part of an atomic multi-stream append. */
export interface StreamAppend {
  readonly stream: string;
  readonly events: readonly EventToAppend[];
  readonly expectedRevision: ExpectedRevision;
  /** Sets this stream's retention in the same atomic write, as `AppendOptions.retention` (rolled back with it). */
  readonly retention?: StreamRetention;
  /**
   * Also expects the stream to have no retention, so that none of its events has expired or been removed: what a
   * writer needs that decided on events it kept from earlier reads rather than on a read made for this write.
   * Guards the write (see `EventStore.appendMulti`).
   */
  readonly expectNoRetention?: boolean;
}

export interface ReadStreamOptions {
  /** First revision to read (inclusive) forwards, or last (inclusive) backwards. Default: start or end. */
  readonly fromRevision?: StreamRevision | 'start' | 'end';
  readonly direction?: 'forwards' | 'backwards';
  readonly maxCount?: number;
}

/** Which events a global read returns. Both filters apply when both are given. */
export interface GlobalFilter {
  readonly eventTypes?: readonly string[];
  readonly streamPrefixes?: readonly string[];
}

export interface ReadAllOptions {
  /** Read events strictly after this position; from the very start when omitted. */
  readonly after?: GlobalPosition;
  readonly filter?: GlobalFilter;
  readonly maxCount?: number;
}

/**
 * A page of the global order. `checkpoint` is where the next read continues, even when the filter matched nothing.
 *
 * A page never ends inside a write (PostgreSQL: a transaction, so a whole `appendMulti` too; in-memory: one
 * `appendToStream` or `appendMulti` call): when `maxCount` is reached inside one, the page goes on to its last event
 * (so it may hold more than `maxCount`). Hence a checkpoint at or past any event of a write means the whole write was
 * read, and a reader that applies whole pages has applied all of it: any one event's position is a safe token to
 * wait for. EventStoreDB does not extend pages (each event of an append has its own `$all` position, commit =
 * prepare, and nothing there marks where an append ends): a page may end inside one append, so there wait for the
 * position of the append's last event (what `AppendResult.position` reports).
 */
export interface ReadAllBatch {
  readonly events: readonly RecordedEvent[];
  readonly checkpoint: GlobalPosition | undefined;
  /** True when the reader has reached everything that is safe to read right now. */
  readonly caughtUp: boolean;
}

export interface SubscribeOptions extends ReadAllOptions {
  /** Called with each batch in order; the subscription waits for it before reading on. */
  readonly onBatch: (batch: ReadAllBatch) => Promise<void>;
  /** How long to wait before polling again once caught up (adapters that poll). Default 50 ms. */
  readonly pollIntervalMs?: number;
  readonly signal?: AbortSignal;
}

/** A running global subscription. */
export interface Subscription {
  /** Stops delivering; resolves once the batch in hand (if any) has been handled. */
  stop(): Promise<void>;
  /** Settles when the subscription ends: resolves on stop, rejects when a batch handler or the store failed. */
  readonly done: Promise<void>;
}

/** What `scavenge` did: the events it removed, or the scavenge it started on the server. */
export interface ScavengeReport {
  readonly removedEvents: number;
  /** The id of the scavenge started (or found running) on the server, where the server scavenges (EventStoreDB). */
  readonly serverScavengeId?: string;
}

export type StreamRetention =
  { readonly maxAgeSeconds: number } | { readonly truncateBefore: StreamRevision };

/** One stream of a `readStreamTails` call: its events from `fromRevision` on. */
export interface StreamTailRead {
  readonly stream: string;
  readonly fromRevision: StreamRevision;
  /**
   * Read `stream` only while this other stream has no head: a caller that needs the stream only while another one is
   * new (an aggregate read with its command's idempotency key, which is new unless the request is a retry) saves the
   * read otherwise. A read left out answers `skipped: true`, with no events and no head.
   */
  readonly unlessExists?: string;
}

/**
 * A stream's events from the revision asked for (only those retention lets through), with its head: the last
 * revision ever written (undefined when the stream has no head, or only a retention before its first event), and
 * whether a retention is set on it. A stream with no retention never loses an event, so its events are exactly the
 * revisions 0 to `head`. EventStoreDB, whose clients see no trace of events its retention removed, answers for a
 * stream with a retention the last revision still read (a caller trusts no kept events of such a stream anyway).
 */
export interface StreamTail {
  readonly events: readonly RecordedEvent[];
  readonly head: StreamRevision | undefined;
  readonly retained: boolean;
  /** Left out: its `unlessExists` stream has a head. Says nothing of the stream itself. */
  readonly skipped?: true;
}

export interface EventStoreCapabilities {
  /** `appendMulti` is offered and atomic. */
  readonly atomicMultiStreamAppend: boolean;
  /** Re-appending the same event ids is exactly-once under every expectation, not only explicit revisions. */
  readonly strictIdempotentAppend: boolean;
  /**
   * Declared `true` where an age retention (`maxAgeSeconds`) expires each event its age after that event's own write
   * and nothing holds a stream back (EventStoreDB's `$maxAge`): a stream written to over longer than its age loses
   * its first events while it is still in use. A caller that needs a stream whole while it is in use (the engine's
   * key in flight) must keep its age above that time there.
   */
  readonly maxAgeFromEachWrite?: boolean;
}

/**
 * The event-store port: streams of events with optimistic concurrency, a global order for projections,
 * and retention. Adapters: in-memory (EventStoreDB's exact rules), PostgreSQL, EventStoreDB.
 */
export interface EventStore {
  readonly capabilities: EventStoreCapabilities;

  /**
   * Appends events if the stream is at `expectedRevision`; throws `WrongExpectedRevisionError` otherwise.
   * Appending the same event ids again with the original expectation returns the original result and writes nothing.
   * Event ids must be UUIDs (`TypeError` otherwise); a negative bigint expectation is a `RangeError`.
   */
  appendToStream(
    stream: string,
    events: readonly EventToAppend[],
    options: AppendOptions,
  ): Promise<AppendResult>;

  /**
   * Appends to several streams in one atomic write. Only where `capabilities.atomicMultiStreamAppend`
   * (`UnsupportedOperationError` elsewhere). Each stream at most once. A repeat of a whole earlier write returns the
   * original results; a write that repeats one stream's events but is new for another is a wrong revision.
   * A write where some stream has `expectNoRetention` is guarded: it is made only as a new write
   * whose every expectation holds, and anything else, a repeat of an earlier write included, is a wrong revision (its
   * writer decided on state it kept, and reads before it decides again). Every stream of a guarded write needs events
   * and `no_stream` or an explicit revision (`RangeError` otherwise).
   */
  appendMulti(appends: readonly StreamAppend[]): Promise<readonly AppendResult[]>;

  /** Reads one stream. An absent (or fully expired) stream reads as empty. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<readonly RecordedEvent[]>;

  /**
   * Reads several streams forwards, each from a revision of its own, in one call: what a caller reads a command's
   * streams with (its key stream and its aggregates), and what a caller that kept the events below `fromRevision`
   * needs to read next, with what it needs to know whether those kept events still stand (see `StreamTail`).
   * Answers one tail per read, in the order given. PostgreSQL: one statement; EventStoreDB: the reads whose
   * `unlessExists` stream has a head are left out, the others read in parallel; in-memory: one turn.
   */
  readStreamTails(reads: readonly StreamTailRead[]): Promise<readonly StreamTail[]>;

  /**
   * Reads the global order after a checkpoint, never skipping an event that commits late, and never ending a page
   * inside a write (see `ReadAllBatch`).
   */
  readAll(options?: ReadAllOptions): Promise<ReadAllBatch>;

  /** Delivers the global order in batches from a checkpoint, then keeps following new events; batches end as pages of `readAll` do. */
  subscribeToAll(options: SubscribeOptions): Subscription;

  /**
   * Sets how long a stream's events are kept (replacing any earlier setting). Expired events stop being read at once
   * and are removed by `scavenge`. The stream's revision outlives its events: appends still expect the last revision
   * ever written, as in EventStoreDB.
   */
  setStreamRetention(stream: string, retention: StreamRetention): Promise<void>;

  /**
   * Physically removes events that retention has expired. Returns how many were removed. EventStoreDB removes them
   * itself: there this starts a scavenge on the server (which runs in the background) and reports 0 removed, with
   * the server's scavenge id.
   */
  scavenge(): Promise<ScavengeReport>;

  close(): Promise<void>;
}
