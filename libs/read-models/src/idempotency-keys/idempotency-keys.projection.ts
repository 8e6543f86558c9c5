import type { RecordedEvent } from '@once/event-store';
import { formatPosition } from '@once/event-store';
import { KEY_STREAM_PREFIX, isKeyLogEvent, keyLogEventTypes } from '@once/idempotency/key-log';
import type { KeyLogEvent, RequestFingerprint } from '@once/idempotency/key-log';
import { defineTable, rowRef } from '@once/projections';
import type { ProjectionDefinition } from '@once/projections';

/** A key's status, named as the key log's fold names it. */
export type IdempotencyKeyStatus = 'inFlight' | 'completed' | 'released';

/** One row per key: the article's `idempotency_keys` columns, plus the key stream and the last applied position. */
export type IdempotencyKeyRow = {
  stream: string;
  tenant_id: string;
  actor_id: string;
  key: string;
  method: string;
  /** The route template the key was used on. */
  path: string;
  /** Hex SHA-256 of the canonical request. */
  request_hash: string;
  status: IdempotencyKeyStatus;
  recovery_point: string;
  /** Who holds the lease while in flight. */
  holder: string | null;
  /** The lease's end while in flight; null otherwise. */
  locked_until: string | null;
  response_status: number | null;
  /** The exact text of the response body, byte for byte. */
  response_body: string | null;
  response_headers: Record<string, string> | null;
  /** The ids (UUIDs) the stored response names, in its `location` and body: what the console looks keys up by. */
  resource_ids: string[];
  release_reason: string | null;
  created_at: string;
  updated_at: string;
  last_applied_position: string;
};

export const idempotencyKeysTable = defineTable<IdempotencyKeyRow>({
  name: 'idempotency_keys',
  columns: {
    stream: { type: 'text' },
    tenant_id: { type: 'text' },
    actor_id: { type: 'text' },
    key: { type: 'text' },
    method: { type: 'text' },
    path: { type: 'text' },
    request_hash: { type: 'text', analyzed: false },
    status: { type: 'text' },
    recovery_point: { type: 'text' },
    holder: { type: 'text', nullable: true },
    locked_until: { type: 'timestamptz', nullable: true },
    response_status: { type: 'integer', nullable: true },
    response_body: { type: 'text', nullable: true, analyzed: false },
    response_headers: { type: 'jsonb', nullable: true, analyzed: false },
    resource_ids: { type: 'jsonb' },
    release_reason: { type: 'text', nullable: true },
    created_at: { type: 'timestamptz' },
    updated_at: { type: 'timestamptz' },
    last_applied_position: { type: 'text' },
  },
  primaryKey: ['stream'],
  unique: [['tenant_id', 'actor_id', 'key']],
  // The request hash and the stored response are compared or returned once a key's row is found, never searched:
  // ANALYZE leaves them out, long values costing it most.
  // In-flight keys by lease end (the completer's work list) in a partial index: a key completed in its first commit,
  // nearly every key, never enters it. No index on created_at: no query walks it. The console looks keys up by key
  // and by the resources their responses name (`@>` on the inverted index), never by scanning stored bodies.
  indexes: [
    { columns: ['locked_until'], where: `status = 'inFlight'` },
    ['updated_at', 'stream'],
    ['tenant_id', 'key'],
    { columns: ['resource_ids'], using: 'gin' },
  ],
});

const uuidPattern = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** The most ids one key is found by: a response listing more (a page of results) is found by its first ones. */
export const maxResourceIdsPerKey = 32;

/**
 * The ids a response names (its `location` first, then its body), lower-cased, each once, at most
 * `maxResourceIdsPerKey`.
 */
const resourceIdsOf = (response: {
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}): string[] => {
  const text = `${response.headers['location'] ?? ''} ${response.body}`;
  const ids = new Set<string>();
  for (const match of text.matchAll(uuidPattern)) {
    ids.add(match[0].toLowerCase());
    if (ids.size === maxResourceIdsPerKey) break;
  }
  return [...ids];
};

/** A key's first row, before its status columns are set by the event that created it. */
const newKeyRow = (
  recorded: RecordedEvent,
  claim: { readonly tenantId: string; readonly actorId: string; readonly key: string },
  request: RequestFingerprint,
): IdempotencyKeyRow => ({
  stream: recorded.stream,
  tenant_id: claim.tenantId,
  actor_id: claim.actorId,
  key: claim.key,
  method: request.method,
  path: request.route,
  request_hash: request.requestHash,
  status: 'inFlight',
  recovery_point: 'started',
  holder: null,
  locked_until: null,
  response_status: null,
  response_body: null,
  response_headers: null,
  resource_ids: [],
  release_reason: null,
  created_at: recorded.recordedAt.toISOString(),
  updated_at: recorded.recordedAt.toISOString(),
  last_applied_position: formatPosition(recorded.position),
});

/**
 * The key table: one row per scoped idempotency key with the status its key log folds to. Events of a key whose
 * claim is gone (retention) are skipped, as the key log's own fold does.
 */
export const idempotencyKeysProjection: ProjectionDefinition = {
  name: 'idempotency_keys',
  // 2: the (updated_at, stream) index the key sweep walks. 3: in-flight keys in a partial index, none by created_at.
  // 4: the ids each response names, and the indexes the console's lookups use.
  version: 4,
  eventTypes: keyLogEventTypes,
  streamPrefixes: [KEY_STREAM_PREFIX],
  tables: [idempotencyKeysTable],
  reads: (event) => [rowRef(idempotencyKeysTable, { stream: event.stream })],
  apply: async (tx, recorded) => {
    if (!isKeyLogEvent(recorded)) return;
    const event = recorded as RecordedEvent & KeyLogEvent;
    const common = {
      updated_at: recorded.recordedAt.toISOString(),
      last_applied_position: formatPosition(recorded.position),
    };
    // A key's row starts at its claim, or at its completion when both happened in one commit (no Claimed event:
    // the completion names who used the key). Later events change the row they find.
    if (event.type === 'IdempotencyKeyClaimed') {
      tx.put(idempotencyKeysTable, {
        ...newKeyRow(recorded, event.data, event.data),
        status: 'inFlight',
        recovery_point: 'started',
        holder: event.data.holder,
        locked_until: new Date(event.data.leaseExpiresAt).toISOString(),
      });
      return;
    }
    const row =
      (await tx.get(idempotencyKeysTable, { stream: recorded.stream })) ??
      (event.type === 'IdempotencyKeyCompleted' && event.data.claim
        ? newKeyRow(recorded, event.data.claim, event.data)
        : undefined);
    if (!row) return;
    switch (event.type) {
      case 'IdempotencyEffectPlanned':
      case 'IdempotencyRecoveryPointReached':
        tx.put(idempotencyKeysTable, {
          ...row,
          ...common,
          recovery_point: event.data.point,
          holder: event.data.holder,
          locked_until: new Date(event.data.leaseExpiresAt).toISOString(),
        });
        return;
      case 'IdempotencyLeaseTaken':
        tx.put(idempotencyKeysTable, {
          ...row,
          ...common,
          holder: event.data.holder,
          locked_until: new Date(event.data.leaseExpiresAt).toISOString(),
        });
        return;
      case 'IdempotencyKeyCompleted':
        tx.put(idempotencyKeysTable, {
          ...row,
          ...common,
          method: event.data.method,
          path: event.data.route,
          request_hash: event.data.requestHash,
          status: 'completed',
          recovery_point: 'finished',
          holder: null,
          locked_until: null,
          response_status: event.data.response.status,
          response_body: event.data.response.body,
          response_headers: { ...event.data.response.headers },
          resource_ids: resourceIdsOf(event.data.response),
        });
        return;
      case 'IdempotencyKeyReleased':
        tx.put(idempotencyKeysTable, {
          ...row,
          ...common,
          status: 'released',
          holder: null,
          locked_until: null,
          release_reason: event.data.reason,
        });
        return;
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
  },
};
