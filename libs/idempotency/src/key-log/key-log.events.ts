/** A response as the key log keeps it: the body is the exact text that was sent, so a replay is byte-identical. */
export interface StoredResponse {
  readonly status: number;
  /** Only allow-listed headers (lower-case names). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What makes two requests "the same request" under one key. */
export interface RequestFingerprint {
  readonly method: string;
  /** The route template (`/invoices/:id/payments`), not the concrete path. */
  readonly route: string;
  /** Hex SHA-256 of the canonical (RFC 8785) method, route, params and body. */
  readonly requestHash: string;
}

/** An event the engine will append to an aggregate stream, with its deterministic ID. */
export interface PlannedEvent {
  readonly id: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata?: Record<string, unknown>;
}

/**
 * One stream's part of a plan. `expectedRevision` is a decimal string (or `'no_stream'`) because event data is
 * JSON; it is the revision the decision was made at, and every resume re-appends at exactly this revision.
 */
export interface PlannedWrite {
  readonly stream: string;
  readonly expectedRevision: 'no_stream' | string;
  readonly eventIds: readonly string[];
  readonly events: readonly PlannedEvent[];
}

/**
 * A claim: who holds the key, and the typed command at the version its definition had (`commandVersion`), enough
 * for the completer to resume it without a client (upcast to the definition's current version first).
 */
export interface IdempotencyKeyClaimedData extends RequestFingerprint {
  readonly tenantId: string;
  readonly actorId: string;
  readonly key: string;
  readonly holder: string;
  /** ISO-8601; also the command's decision time, so a resumed decision sees the same clock. */
  readonly claimedAt: string;
  readonly leaseExpiresAt: string;
  readonly commandType: string;
  readonly commandVersion: number;
  readonly command: unknown;
}

export interface IdempotencyEffectPlannedData {
  /** The effect's name within the handler (`'effect'` for a single-decision handler). */
  readonly point: string;
  readonly writes: readonly PlannedWrite[];
  /** The response to give once the effect is applied (single-decision handlers). */
  readonly response?: StoredResponse;
  /** The value the effect returns to the rest of a phased handler. */
  readonly result?: unknown;
  readonly holder: string;
  readonly leaseExpiresAt: string;
}

export interface IdempotencyRecoveryPointReachedData {
  readonly point: string;
  /** `started`: an external step is about to run; `finished`: it ran and `data` is its result. */
  readonly stage: 'started' | 'finished';
  readonly data?: unknown;
  readonly holder: string;
  readonly leaseExpiresAt: string;
}

export interface IdempotencyLeaseTakenData {
  readonly holder: string;
  readonly previousHolder: string;
  readonly leaseExpiresAt: string;
}

export interface IdempotencyKeyCompletedData extends RequestFingerprint {
  readonly response: StoredResponse;
  readonly holder: string;
  /**
   * Who used the key, when the key was claimed and completed in one commit (the atomic protocol): then this event is
   * the key's whole log and no `IdempotencyKeyClaimed` precedes it. Absent after a claim.
   */
  readonly claim?: { readonly tenantId: string; readonly actorId: string; readonly key: string };
}

export interface IdempotencyKeyReleasedData {
  readonly reason: string;
  readonly holder: string;
}

export type KeyLogEvent =
  | { readonly type: 'IdempotencyKeyClaimed'; readonly data: IdempotencyKeyClaimedData }
  | { readonly type: 'IdempotencyEffectPlanned'; readonly data: IdempotencyEffectPlannedData }
  | { readonly type: 'IdempotencyRecoveryPointReached'; readonly data: IdempotencyRecoveryPointReachedData }
  | { readonly type: 'IdempotencyLeaseTaken'; readonly data: IdempotencyLeaseTakenData }
  | { readonly type: 'IdempotencyKeyCompleted'; readonly data: IdempotencyKeyCompletedData }
  | { readonly type: 'IdempotencyKeyReleased'; readonly data: IdempotencyKeyReleasedData };

export type KeyLogEventType = KeyLogEvent['type'];

export const keyLogEventTypes: readonly KeyLogEventType[] = [
  'IdempotencyKeyClaimed',
  'IdempotencyEffectPlanned',
  'IdempotencyRecoveryPointReached',
  'IdempotencyLeaseTaken',
  'IdempotencyKeyCompleted',
  'IdempotencyKeyReleased',
];

/** True for the events of a key stream. */
export const isKeyLogEvent = (event: { readonly type: string }): event is KeyLogEvent =>
  (keyLogEventTypes as readonly string[]).includes(event.type);
