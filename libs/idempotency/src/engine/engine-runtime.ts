import { fingerprint } from '@once/canonical-json';
import { comparePositions, WrongExpectedRevisionError } from '@once/event-store';
import type {
  AppendResult,
  EventStore,
  EventToAppend,
  ExpectedRevision,
  GlobalPosition,
  RecordedEvent,
  StreamRetention,
  StreamRevision,
  StreamTailRead,
} from '@once/event-store';
import { withSecretsReferenced } from '../commands/secret-reference.js';
import type { TypedCommand } from '../commands/index.js';
import { deriveId } from '../ids/index.js';
import type { KeptDecisions } from './kept-decisions.js';
import type { IdempotencyScope } from '../ids/index.js';
import { decideArrival, foldKeyLog, isKeyLogEvent } from '../key-log/index.js';
import type {
  ArrivalDecision,
  KeyLogEvent,
  KeyState,
  PlannedWrite,
  RequestFingerprint,
  StoredResponse,
} from '../key-log/index.js';
import type {
  CommandContext,
  CommandHandler,
  CommandRequest,
  DecideCommandHandler,
  StreamSnapshot,
  StreamWrite,
} from './command-handler.js';
import type { EngineProtocol, ExecuteOutcome } from './execute-outcome.js';
import type { FaultHook, FaultPoint } from './fault-points.js';
import { dropOldestBeyond } from './drop-oldest.js';
import { StreamCache } from './stream-cache.js';
import { toStoredResponse } from './stored-response.js';

export interface ExecuteInput<Command = unknown> {
  readonly scope: IdempotencyScope;
  /** The client's key, already validated (`parseIdempotencyKeyHeader`). */
  readonly key: string;
  /** What the request fingerprint covers (method, route template, params, body), or the fingerprint a claim recorded. */
  readonly request: CommandRequest | RequestFingerprint;
  /** The typed command the handler gets; recorded in the key's claim so the completer can resume it. */
  readonly command: TypedCommand<Command>;
  readonly handler: CommandHandler<Command>;
  /** Key retention for this route (seconds); overrides the handler's and the engine's. */
  readonly retentionSeconds?: number;
}

/** A fault hook threw: the "process" is dead, nothing may run after it, not even clean-up. */
export class CrashSignal {
  constructor(readonly error: unknown) {}
}

/** The settings the protocols share (`IdempotencyEngineOptions` with its defaults filled in). */
export interface EngineSettings {
  readonly store: EventStore;
  readonly clock: () => number;
  readonly random: () => number;
  readonly sleep: (milliseconds: number) => Promise<void>;
  readonly leaseMs: number;
  readonly retentionSeconds: number;
  readonly maxConflictRetries: number;
  readonly retryBaseMs: number;
  readonly faults: FaultHook | undefined;
  readonly allowList: readonly string[];
  /** The keys secret fields' references are an HMAC under: the current one first, then older ones. */
  readonly referenceKeys: readonly Uint8Array[];
  readonly completedKeys: CompletedKeys;
  /** Whether first requests on aggregates this process keeps are decided on the kept events (the atomic protocol). */
  readonly keptDecisions: KeptDecisions;
  /** Whether first requests naming aggregates this process knows nothing of are decided on them as new. */
  readonly newAggregates: KeptDecisions;
}

/** The aggregates a first attempt is decided on without a read, and the odds that let it try (told how it ended). */
interface UnreadSnapshots {
  readonly snapshots: ReadonlyMap<string, StreamSnapshot>;
  readonly odds: KeptDecisions;
}

/** How many completed keys an engine remembers by default, the longest remembered dropped first. */
export const COMPLETED_KEYS_SIZE = 10_000;
/** How long an engine answers a completed key from memory before it reads the key log again. Default 5 minutes. */
export const COMPLETED_KEYS_TTL_MS = 5 * 60_000;

/** A completed key as its log answers it: the request it belongs to, its stored response, where it was completed. */
export interface CompletedKey {
  readonly fingerprint: RequestFingerprint;
  readonly response: StoredResponse;
  readonly position: GlobalPosition | undefined;
}

interface Remembered extends CompletedKey {
  /** Engine-clock milliseconds after which the key log is read again. */
  readonly until: number;
}

/**
 * The keys this process saw completed, answered without a read. A completed key log is final: no event may follow
 * `IdempotencyKeyCompleted` (the fold refuses one), so its answer (a replay of the stored response, or a reuse for a
 * different request) cannot change while its events stand. The only change is expiry, when the key's retention
 * ends and it may be claimed again: an entry is kept for at most `ttlMs` and never past the key's own expiry, so a
 * key is read from its log again before it expires.
 */
export class CompletedKeys {
  private readonly remembered = new Map<string, Remembered>();

  constructor(
    private readonly capacity: number = COMPLETED_KEYS_SIZE,
    private readonly ttlMs: number = COMPLETED_KEYS_TTL_MS,
  ) {}

  /** The completed key under `keyStream`, if remembered and still in time at `now`. */
  get(keyStream: string, now: number): CompletedKey | undefined {
    const entry = this.remembered.get(keyStream);
    if (entry === undefined) return undefined;
    if (now < entry.until) return entry;
    this.remembered.delete(keyStream);
    return undefined;
  }

  /**
   * Remembers a completed key at `now`, until the earlier of `now + ttlMs` and `expiresAt` (engine-clock ms). Beyond
   * the capacity the keys remembered longest are dropped (`dropOldestBeyond`): an answer does not move a key up,
   * since moving an entry of a large map on every replay (delete, then set) costs more than the occasional read of a
   * key dropped early.
   */
  remember(keyStream: string, key: CompletedKey, now: number, expiresAt: number): void {
    if (this.capacity <= 0) return;
    const until = Math.min(now + this.ttlMs, expiresAt);
    if (until <= now) return;
    this.remembered.delete(keyStream);
    // A fingerprint of its own: what a request allocates stays short-lived, and V8 allocates every object from a site
    // whose objects all survive (the request's fingerprint, were it kept) straight into its old generation.
    const { fingerprint, response, position } = key;
    this.remembered.set(keyStream, { fingerprint: { ...fingerprint }, response, position, until });
    dropOldestBeyond(this.remembered, this.capacity);
  }
}

/** A key stream as read: its state, where to append next, and where it was completed (a replay's token). */
export interface KeyLogRead {
  readonly state: KeyState;
  readonly revision: StreamRevision | undefined;
  readonly completedAt: GlobalPosition | undefined;
  /** When the completion was recorded: the key expires a retention after it. */
  readonly completedRecordedAt: Date | undefined;
}

/** What came of a decision made before any key-log write: the events to plan, or an outcome to answer at once. */
export type Decided =
  | { readonly kind: 'accept'; readonly writes: PlannedWrite[]; readonly response: StoredResponse }
  | { readonly kind: 'reject'; readonly response: StoredResponse }
  | { readonly kind: 'released'; readonly outcome: ExecuteOutcome };

/**
 * One `execute` call: the input, its fingerprint and key stream, and the latest global position its own appends
 * reached (the first outcome's read-your-writes token).
 */
export class Execution {
  readonly request: RequestFingerprint;
  /** The request's hash under each older reference key: a claim recorded under one of them is this same request. */
  readonly alsoHashes: readonly string[];
  position: GlobalPosition | undefined;
  keyLogPosition: GlobalPosition | undefined;

  constructor(
    readonly input: ExecuteInput,
    /** The key's stream (`keyStreamName`), also what `CompletedKeys` knows it by. */
    readonly keyStream: string,
    /** The reference keys secret fields are hashed under in the fingerprint, the current one first. */
    referenceKeys: readonly Uint8Array[] = [],
  ) {
    const [request, ...older] = requestFingerprints(
      input.request,
      input.command.secretFields ?? [],
      referenceKeys,
    );
    this.request = request as RequestFingerprint;
    this.alsoHashes = older.map((fingerprint) => fingerprint.requestHash);
  }

  /** Notes where this execution's latest append to the key stream landed (after a completion: where it completed). */
  wroteKeyLog(result: AppendResult): void {
    this.keyLogPosition = result.position;
    this.wrote([result]);
  }

  /** Notes where an append of this execution landed. */
  wrote(results: readonly AppendResult[]): void {
    for (const { position } of results) {
      if (this.position === undefined || comparePositions(position, this.position) > 0)
        this.position = position;
    }
  }

  /** An outcome with this execution's write position, when it wrote. */
  withPosition<Outcome extends ExecuteOutcome>(outcome: Outcome): Outcome {
    return this.position === undefined ? outcome : { ...outcome, position: this.position };
  }

  context(requestedAt: number): CommandContext {
    const { scope, key } = this.input;
    return {
      scope,
      key,
      command: this.input.command.data,
      requestedAt: new Date(requestedAt),
      ids: { next: (purpose, index = 0) => this.derivedId(purpose, index) },
    };
  }

  /** The IDs its handler derived, by index and purpose: a handler asks for the same ID in its decision and answer. */
  private readonly derivedIds = new Map<string, string>();

  /** `deriveId` for this execution's key, each ID computed once (a number never holds the `:` that ends it). */
  private derivedId(purpose: string, index: number): string {
    const name = `${index}:${purpose}`;
    let id = this.derivedIds.get(name);
    if (id === undefined) {
      id = deriveId(this.input.scope, this.input.key, purpose, index);
      this.derivedIds.set(name, id);
    }
    return id;
  }

  /** Key-log events get IDs from the key, the holder and the revision they are appended at (see `keyLogEventIds`). */
  keyEvents(events: readonly KeyLogEvent[], holder: string, at: ExpectedRevision): EventToAppend[] {
    return events.map((event, index) => ({
      id: deriveId(this.input.scope, this.input.key, `key-log:${holder}:${String(at)}`, index),
      type: event.type,
      data: event.data,
    }));
  }
}

/**
 * The request's fingerprint, as a claim recorded it or computed from its parts; a body field named as a secret field
 * is hashed as its keyed reference, never as the secret (a hash of a card token could be brute-forced), once under each
 * reference key, the current one first.
 */
const requestFingerprints = (
  request: CommandRequest | RequestFingerprint,
  secretFields: readonly string[],
  referenceKeys: readonly Uint8Array[],
): readonly RequestFingerprint[] => {
  const method = request.method.toUpperCase();
  if ('requestHash' in request) return [{ method, route: request.route, requestHash: request.requestHash }];
  const { route, params } = request;
  const hashed = (body: unknown): RequestFingerprint => ({
    method,
    route,
    requestHash: fingerprint({ method, route, params, body }),
  });
  const secretInBody =
    typeof request.body === 'object' &&
    request.body !== null &&
    secretFields.some((field) => typeof (request.body as Record<string, unknown>)[field] === 'string');
  if (!secretInBody || referenceKeys.length === 0) return [hashed(request.body)];
  return referenceKeys.map((key) => hashed(withSecretsReferenced(request.body, secretFields, key)));
};

export const toExpected = (revision: 'no_stream' | string): ExpectedRevision =>
  revision === 'no_stream' ? 'no_stream' : BigInt(revision);
/** A value as the store gives it back: JSON (a kept event carries what a read of it would). */
const asStored = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

const fromRevision = (revision: StreamRevision | 'no_stream'): 'no_stream' | string =>
  revision === 'no_stream' ? 'no_stream' : revision.toString();

/** Conflicts on the key stream within one execution: a budget, and the revision the last conflict reported. */
export class KeyConflicts {
  private count = 0;
  hint: StreamRevision | undefined;

  constructor(private readonly max: number) {}

  /**
   * Counts a conflict; false once the budget is spent. When the read saw no stream, learns the actual revision, or
   * forgets an old one when the stream is gone again (the scavenger removed an expired key stream meanwhile).
   */
  retry(error: WrongExpectedRevisionError, readRevision: StreamRevision | undefined): boolean {
    if (readRevision === undefined) this.hint = typeof error.actual === 'bigint' ? error.actual : undefined;
    this.count += 1;
    return this.count <= this.max;
  }

  expected(readRevision: StreamRevision | undefined): ExpectedRevision {
    return readRevision ?? this.hint ?? 'no_stream';
  }
}

/** The pieces both protocols use: reads, fault points, backoff, plans, decisions, the arrival answers. */
export const createEngineRuntime = (settings: EngineSettings) => {
  const { store } = settings;

  const fault = async (point: FaultPoint, keyStream: string, protocol: EngineProtocol): Promise<void> => {
    if (!settings.faults) return;
    try {
      await settings.faults(point, { keyStream, protocol });
    } catch (error) {
      throw new CrashSignal(error);
    }
  };

  const backoff = async (attempt: number): Promise<void> => {
    const cap = settings.retryBaseMs * 2 ** Math.min(attempt, 10);
    await settings.sleep(Math.floor(settings.random() * cap));
  };

  const toKeyLog = (recorded: readonly RecordedEvent[]): KeyLogRead => {
    const events = recorded
      .filter(isKeyLogEvent)
      .map((event) => ({ type: event.type, data: event.data }) as KeyLogEvent);
    // Where the key was completed: the replay's read-your-writes token (see ExecuteOutcome).
    const completion = recorded.findLast((event) => event.type === 'IdempotencyKeyCompleted');
    return {
      state: foldKeyLog(events),
      revision: recorded.at(-1)?.revision,
      completedAt: completion?.position,
      completedRecordedAt: completion?.recordedAt,
    };
  };

  const readKeyLog = async (keyStream: string): Promise<KeyLogRead> =>
    toKeyLog(await store.readStream(keyStream));

  const toSnapshots = (
    streams: readonly string[],
    read: readonly (readonly RecordedEvent[] | undefined)[],
  ): ReadonlyMap<string, StreamSnapshot> =>
    new Map(
      streams.map((stream, index) => {
        const events = read[index] ?? [];
        const last = events.at(-1);
        return [
          stream,
          { stream, events, revision: last === undefined ? 'no_stream' : last.revision },
        ] as const;
      }),
    );

  const streamCache = new StreamCache();

  /**
   * Reads the execution's key log whole (when given) and each aggregate from where this process's kept events end, in
   * one statement; an aggregate whose kept events no longer stand is read whole by a second one (rare: only after its
   * retention changed). With a key, the aggregates are read only while its stream is new: a retry needs none of them
   * (a released key, claimed again, reads them by a second statement), and `aggregates` is then undefined.
   * Undefined where the store cannot read tails.
   */
  const readTails = async (
    execution: Execution | undefined,
    streams: readonly string[],
  ): Promise<{ key?: KeyLogRead; aggregates?: (readonly RecordedEvent[])[] } | undefined> => {
    if (store.readStreamTails === undefined) return undefined;
    const plans = streams.map((stream) => streamCache.tailRead(stream));
    const keyReads: StreamTailRead[] =
      execution === undefined ? [] : [{ stream: execution.keyStream, fromRevision: 0n }];
    const unlessExists = execution?.keyStream;
    const tails = await store.readStreamTails([
      ...keyReads,
      ...plans.map((plan) => (unlessExists === undefined ? plan.read : { ...plan.read, unlessExists })),
    ]);
    const [keyTail] = execution === undefined ? [] : tails;
    const aggregateTails = tails.slice(keyReads.length);
    const key = execution === undefined ? undefined : toKeyLog(keyTail?.events ?? []);
    if (aggregateTails.some((tail) => tail.skipped === true)) return { key };
    const aggregates: (readonly RecordedEvent[] | undefined)[] = streams.map((stream, index) => {
      const tail = aggregateTails[index];
      const plan = plans[index];
      return tail === undefined || plan === undefined ? [] : streamCache.merge(stream, plan.kept, tail);
    });
    const stale = streams.filter((_, index) => aggregates[index] === undefined);
    if (stale.length > 0) {
      const whole = await store.readStreamTails(stale.map((stream) => ({ stream, fromRevision: 0n })));
      stale.forEach((stream, index) => {
        const tail = whole[index];
        aggregates[streams.indexOf(stream)] = tail === undefined ? [] : streamCache.merge(stream, [], tail);
      });
    }
    return { key, aggregates: aggregates.map((events) => events ?? []) };
  };

  const readSnapshots = async (streams: readonly string[]): Promise<ReadonlyMap<string, StreamSnapshot>> => {
    const unique = [...new Set(streams)];
    const tails = await readTails(undefined, unique);
    if (tails?.aggregates !== undefined) return toSnapshots(unique, tails.aggregates);
    return toSnapshots(unique, await Promise.all(unique.map((stream) => store.readStream(stream))));
  };

  /**
   * The aggregates to decide a first attempt on without a read, and the odds it is tried on: every one as this
   * process keeps it up to its head, or as new where this process knows nothing of it (a command that creates its
   * aggregate; only where the store reads tails, so that every aggregate read is kept); undefined when it keeps one
   * behind its head, or the odds say read first.
   */
  const unreadSnapshots = (streams: readonly string[]): UnreadSnapshots | undefined => {
    const unique = [...new Set(streams)];
    const events: (readonly RecordedEvent[])[] = [];
    let assumedNew = false;
    for (const stream of unique) {
      const kept = streamCache.current(stream);
      if (kept === undefined && streamCache.knows(stream)) return undefined;
      assumedNew ||= kept === undefined;
      events.push(kept ?? []);
    }
    if (assumedNew && store.readStreamTails === undefined) return undefined;
    const odds = assumedNew ? settings.newAggregates : settings.keptDecisions;
    return odds.shouldTry() ? { snapshots: toSnapshots(unique, events), odds } : undefined;
  };

  /**
   * Keeps what an append wrote to aggregates whose events this process keeps. A stream's write is known exactly
   * (as a read returns it) when it is one event and the store said when it was recorded.
   */
  const keepWritten = (writes: readonly PlannedWrite[], results: readonly AppendResult[]): void => {
    writes.forEach((write, index) => {
      const result = results[index];
      const [event] = write.events;
      const exact = result?.recordedAt !== undefined && event !== undefined && write.events.length === 1;
      streamCache.wrote(
        write.stream,
        exact
          ? [
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
            ]
          : undefined,
      );
    });
  };

  /**
   * The key stream and the aggregates in one round trip where the store reads several streams at once: on
   * PostgreSQL every statement costs a round trip of CPU-bound syscalls on both sides, and this is what keeps a
   * first request at the plain path's two statements (read, append). Where the store reads tails, the aggregates are
   * read only while the key's stream is new, so a retry reads its key log alone (no `snapshots`: a released key,
   * claimed again, reads them next). Where it reads whole streams only, a replay reads the aggregates for nothing, a
   * small price next to a second round trip. Stores without `readStreams` read the key alone first.
   */
  const readKeyAndSnapshots = async (
    execution: Execution,
    streams: readonly string[] | undefined,
  ): Promise<{ key: KeyLogRead; snapshots?: ReadonlyMap<string, StreamSnapshot> }> => {
    if (streams === undefined) return { key: await readKey(execution) };
    const unique = [...new Set(streams)];
    const tails = await readTails(execution, unique);
    if (tails?.key !== undefined) {
      const { key, aggregates } = tails;
      return aggregates === undefined ? { key } : { key, snapshots: toSnapshots(unique, aggregates) };
    }
    if (store.readStreams === undefined) return { key: await readKey(execution) };
    const [keyEvents = [], ...aggregates] = await store.readStreams([execution.keyStream, ...unique]);
    return { key: toKeyLog(keyEvents), snapshots: toSnapshots(unique, aggregates) };
  };

  /** An execution's key log (in the same statement as the aggregates' tails where the store reads tails). */
  const readKey = async (execution: Execution): Promise<KeyLogRead> => {
    const tails = await readTails(execution, []);
    if (tails?.key !== undefined) return tails.key;
    return readKeyLog(execution.keyStream);
  };

  const planWrites = (
    execution: Execution,
    idPrefix: string,
    writes: readonly StreamWrite[],
    snapshots: ReadonlyMap<string, StreamSnapshot>,
  ): PlannedWrite[] => {
    const { scope, key } = execution.input;
    const byStream = new Map<string, StreamWrite['events'][number][]>();
    for (const write of writes) {
      if (write.events.length === 0) continue;
      byStream.set(write.stream, [...(byStream.get(write.stream) ?? []), ...write.events]);
    }
    return [...byStream].map(([stream, events]) => {
      const snapshot = snapshots.get(stream);
      if (snapshot === undefined) {
        throw new Error(`the handler writes to ${stream} without reading it first (list it in streams)`);
      }
      const planned = events.map((event, index) => ({
        id: deriveId(scope, key, `${idPrefix}${stream}`, index),
        type: event.type,
        data: event.data,
        ...(event.metadata === undefined ? {} : { metadata: event.metadata }),
      }));
      return {
        stream,
        expectedRevision: fromRevision(snapshot.revision),
        eventIds: planned.map((event) => event.id),
        events: planned,
      };
    });
  };

  /**
   * A decide handler's decision, planned: the events with their IDs and the response as it will be stored. A handler
   * that throws, or answers a 5xx, releases nothing yet (nothing was written): the outcome says so.
   */
  const decide = (
    execution: Execution,
    handler: DecideCommandHandler,
    context: CommandContext,
    snapshots: ReadonlyMap<string, StreamSnapshot>,
  ): Decided => {
    let decision;
    let writes: PlannedWrite[];
    try {
      decision = handler.decide(context, snapshots);
      writes = decision.kind === 'accept' ? planWrites(execution, '', decision.writes, snapshots) : [];
    } catch (error) {
      return { kind: 'released', outcome: { kind: 'released', reason: 'handler-error', error } };
    }
    const response = toStoredResponse(decision.response, settings.allowList);
    if (response.status >= 500) {
      return { kind: 'released', outcome: { kind: 'released', reason: 'server-error-response', response } };
    }
    return decision.kind === 'accept' ? { kind: 'accept', writes, response } : { kind: 'reject', response };
  };

  const retentionOf = (input: ExecuteInput): number =>
    input.retentionSeconds ?? input.handler.retentionSeconds ?? settings.retentionSeconds;

  /**
   * The retention of a claim that completes the key in its own write (the atomic protocol, or a rejection decided
   * with the claim): a new key stream gets it in the same commit as its first events (no separate call, no second
   * commit); a stream that already exists keeps the one its earlier life ended with.
   */
  const claimRetention = (
    input: ExecuteInput,
    expected: ExpectedRevision,
  ): { readonly retention?: StreamRetention } =>
    expected === 'no_stream' ? { retention: { maxAgeSeconds: retentionOf(input) } } : {};

  /**
   * The retention of a claim that leaves the key in flight: none, so nothing of a key in flight ever expires or is
   * scavenged, however long it waits for its completer. A new stream gets none; a stream with an earlier life
   * (released, or expired and not yet removed) hides that life below the claim, by revision and never by age.
   */
  const inFlightClaimRetention = (expected: ExpectedRevision): { readonly retention?: StreamRetention } =>
    typeof expected === 'bigint' ? { retention: { truncateBefore: expected + 1n } } : {};

  /**
   * The retention written with a key's completion or release: its clock starts there. Events age from their own
   * record time, so the age counts the time the key spent in flight too: its claim then expires a whole retention
   * after the completion, and the key answers at least that long.
   */
  const endOfLifeRetention = (input: ExecuteInput, claimedAt: string, now: number): StreamRetention => ({
    maxAgeSeconds: retentionOf(input) + Math.max(0, Math.ceil((now - Date.parse(claimedAt)) / 1000)),
  });

  /** How long before its retention ends a completed key stops being answered from memory (clocks may differ). */
  const expiryMarginMs = 60_000;

  /** Remembers a key this execution saw completed, until shortly before it may expire (see `CompletedKeys`). */
  const rememberCompleted = (
    execution: Execution,
    response: StoredResponse,
    position: GlobalPosition | undefined,
    completedAtMs: number,
  ): void => {
    const now = settings.clock();
    const expiresAt = completedAtMs + retentionOf(execution.input) * 1000 - expiryMarginMs;
    settings.completedKeys.remember(
      execution.keyStream,
      { fingerprint: execution.request, response, position },
      now,
      expiresAt,
    );
  };

  /** A key this process remembers completed, answered without a read: a replay, or a reuse for another request. */
  const rememberedOutcome = (execution: Execution): ExecuteOutcome | undefined => {
    const completed = settings.completedKeys.get(execution.keyStream, settings.clock());
    if (completed === undefined) return undefined;
    const arrival = decideArrival(
      { status: 'completed', fingerprint: completed.fingerprint, response: completed.response },
      execution.request,
      settings.clock(),
      execution.alsoHashes,
    );
    if (arrival.kind !== 'replay')
      return arrival.kind === 'reused' ? arrivalOutcome(execution, arrival) : undefined;
    return {
      kind: 'replay',
      response: arrival.response,
      ...(completed.position === undefined ? {} : { position: completed.position }),
    };
  };

  /** The answer to an arrival that needs no write: a replay, a reuse, or a key in flight elsewhere. */
  const arrivalOutcome = (
    execution: Execution,
    arrival: Exclude<ArrivalDecision, { kind: 'claim' | 'take-over' }>,
    key?: KeyLogRead,
  ): ExecuteOutcome => {
    switch (arrival.kind) {
      case 'replay':
        if (key?.completedRecordedAt !== undefined) {
          rememberCompleted(execution, arrival.response, key.completedAt, key.completedRecordedAt.getTime());
        }
        return {
          kind: 'replay',
          response: arrival.response,
          ...(key?.completedAt === undefined ? {} : { position: key.completedAt }),
        };
      case 'reused':
        return { kind: 'reused', original: arrival.original };
      case 'in-flight':
        return { kind: 'in-flight', retryAfterSeconds: arrival.retryAfterSeconds };
      default: {
        const _exhaustive: never = arrival;
        return _exhaustive;
      }
    }
  };

  /** After losing a race for the key: read it again and answer what it now says (normally in flight). */
  const follow = async (execution: Execution): Promise<ExecuteOutcome> => {
    const key = await readKey(execution);
    const arrival = decideArrival(key.state, execution.request, settings.clock(), execution.alsoHashes);
    if (arrival.kind === 'claim' || arrival.kind === 'take-over') {
      return { kind: 'unavailable', reason: 'contention', retryAfterSeconds: 1 };
    }
    return arrivalOutcome(execution, arrival, key);
  };

  const leaseExpiresAt = (now: number): string => new Date(now + settings.leaseMs).toISOString();

  return {
    settings,
    store,
    fault,
    backoff,
    readKeyLog,
    readKey,
    readSnapshots,
    readKeyAndSnapshots,
    unreadSnapshots,
    keepWritten,
    newKey: toKeyLog([]),
    planWrites,
    decide,
    claimRetention,
    inFlightClaimRetention,
    endOfLifeRetention,
    arrivalOutcome,
    rememberCompleted,
    rememberedOutcome,
    follow,
    leaseExpiresAt,
  };
};

export type EngineRuntime = ReturnType<typeof createEngineRuntime>;

/** True for the conflict of a fenced append. */
export const isConflict = (error: unknown): error is WrongExpectedRevisionError =>
  error instanceof WrongExpectedRevisionError;
