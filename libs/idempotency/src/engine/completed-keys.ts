import { sameJsonValue } from '@once/canonical-json';
import type { JsonValue } from '@once/canonical-json';
import type { GlobalPosition } from '@once/event-store';
import { decideArrival } from '../key-log/index.js';
import type { RequestFingerprint, StoredResponse } from '../key-log/index.js';
import { dropOldestBeyond } from './drop-oldest.js';
import type { EngineSettings, ExecuteInput } from './engine-settings.js';
import type { ExecuteOutcome } from './execute-outcome.js';
import type { Execution } from './execution.js';
import { retentionOf } from './key-retention.js';

/** How many completed keys an engine remembers by default, the longest remembered dropped first. */
export const COMPLETED_KEYS_SIZE = 10_000;
/** How long an engine answers a completed key from memory before it reads the key log again. Default 5 minutes. */
export const COMPLETED_KEYS_TTL_MS = 5 * 60_000;
/** How long before its retention ends a completed key stops being answered from memory (clocks may differ). */
const EXPIRY_MARGIN_MS = 60_000;
/** The longest request text a remembered key keeps to compare retries with; a longer request is compared by hash. */
const KEPT_REQUEST_CHARS = 1024;

/** A completed key as its log answers it: the request it belongs to, its stored response, where it was completed. */
export interface CompletedKey {
  readonly fingerprint: RequestFingerprint;
  /** The request itself, where it was short and held no secret: a retry is compared with it, not hashed. */
  readonly request?: KeptRequest;
  readonly response: StoredResponse;
  readonly position: GlobalPosition | undefined;
}

/** A completed request as `fingerprintText` wrote it, parsed back: what its fingerprint covers, as JSON. */
export interface KeptRequest {
  readonly method: string;
  readonly route: string;
  readonly params: JsonValue;
  readonly body: JsonValue;
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

  /** The completed key `scopedKey` (`Execution.scopedKey`), if remembered and still in time at `now`. */
  get(scopedKey: string, now: number): CompletedKey | undefined {
    const entry = this.remembered.get(scopedKey);
    if (entry === undefined) return undefined;
    if (now < entry.until) return entry;
    this.remembered.delete(scopedKey);
    return undefined;
  }

  /**
   * Remembers a completed key at `now`, until the earlier of `now + ttlMs` and `expiresAt` (engine-clock ms). Beyond
   * the capacity the keys remembered longest are dropped (`dropOldestBeyond`): an answer does not move a key up,
   * since moving an entry of a large map on every replay (delete, then set) costs more than the occasional read of a
   * key dropped early.
   */
  remember(scopedKey: string, key: CompletedKey, now: number, expiresAt: number): void {
    if (this.capacity <= 0) return;
    const until = Math.min(now + this.ttlMs, expiresAt);
    if (until <= now) return;
    this.remembered.delete(scopedKey);
    // A fingerprint of its own: what a request allocates stays short-lived, and V8 allocates every object from a site
    // whose objects all survive (the request's fingerprint, were it kept) straight into its old generation.
    this.remembered.set(scopedKey, { ...key, fingerprint: { ...key.fingerprint }, until });
    dropOldestBeyond(this.remembered, this.capacity);
  }
}

/** What the engine does with the keys it saw completed: remember them, and answer arrivals from them. */
export interface CompletedKeyMemory {
  /** Remembers a key this execution saw completed, until shortly before it may expire. */
  remember(
    execution: Execution,
    response: StoredResponse,
    position: GlobalPosition | undefined,
    completedAtMs: number,
  ): void;
  /** A key this process remembers completed, answered without a read: a replay, or a reuse for another request. */
  answer(execution: Execution): ExecuteOutcome | undefined;
}

/** The request an execution completed, kept where it is short and holds no secret. */
const keptRequestOf = (execution: Execution): KeptRequest | undefined => {
  const text = execution.plainRequestText;
  return text !== undefined && text.length <= KEPT_REQUEST_CHARS
    ? (JSON.parse(text) as KeptRequest)
    : undefined;
};

/**
 * Whether an arrival is the kept request: the same method and route, and params and body the same JSON values as
 * their canonical forms would say (`sameJsonValue`), told without canonicalising or hashing the arrival.
 */
const isKeptRequest = (kept: KeptRequest, request: ExecuteInput['request']): boolean =>
  !('requestHash' in request) &&
  kept.route === request.route &&
  kept.method === request.method.toUpperCase() &&
  sameJsonValue(kept.params, request.params ?? {}) &&
  sameJsonValue(kept.body, request.body === undefined ? null : request.body);

/** The replay of a remembered key, with the token of where it was completed. */
const replayOf = (completed: CompletedKey): ExecuteOutcome => ({
  kind: 'replay',
  response: completed.response,
  ...(completed.position === undefined ? {} : { position: completed.position }),
});

/** The engine's memory of completed keys, over `keys`, on the engine's clock and retention. */
export const completedKeyMemory = (keys: CompletedKeys, settings: EngineSettings): CompletedKeyMemory => ({
  remember: (execution, response, position, completedAtMs) => {
    const expiresAt = completedAtMs + retentionOf(settings, execution.input) * 1000 - EXPIRY_MARGIN_MS;
    const request = keptRequestOf(execution);
    keys.remember(
      execution.scopedKey,
      { fingerprint: execution.request, ...(request === undefined ? {} : { request }), response, position },
      settings.clock(),
      expiresAt,
    );
  },
  answer: (execution) => {
    const completed = keys.get(execution.scopedKey, settings.clock());
    if (completed === undefined) return undefined;
    // The request it completed, sent again: a replay, known without the fingerprint's canonical text and hash.
    if (completed.request !== undefined && isKeptRequest(completed.request, execution.input.request))
      return replayOf(completed);
    const arrival = decideArrival(
      { status: 'completed', fingerprint: completed.fingerprint, response: completed.response },
      execution.request,
      settings.clock(),
      execution.alsoHashes,
    );
    if (arrival.kind === 'reused') return { kind: 'reused', original: arrival.original };
    if (arrival.kind !== 'replay') return undefined;
    return replayOf(completed);
  },
});
