import type { Pool } from 'pg';
import type { EventStore } from '@once/event-store';
import { formatPosition } from '@once/event-store';
import { replaceSealedSecrets } from '@once/webhooks';
import type { KeyTimelineView } from './console.schemas.js';

interface KeyRow {
  stream: string;
  actor_id: string;
  key: string;
  method: string;
  path: string;
  status: 'inFlight' | 'completed' | 'released';
  recovery_point: string;
  holder: string | null;
  locked_until: Date | null;
  response_status: number | null;
  response_body: string | null;
  response_headers: Record<string, string> | null;
  release_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

const keyColumns = `stream, actor_id, key, method, path, status, recovery_point, holder, locked_until,
  response_status, response_body, response_headers, release_reason, created_at, updated_at`;

/** What the console shows in place of a sealed secret: its caller saw it once, nobody reads it here. */
export const redactedSecret = '[redacted]';

const redactText = (text: string): string => replaceSealedSecrets(text, () => redactedSecret);

/** A key-log event's data with every sealed secret in it (an endpoint's, in a plan or a stored answer) redacted. */
const redacted = (value: unknown): unknown => {
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) return value.map(redacted);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([name, field]) => [name, redacted(field)]));
  }
  return value;
};

const statusView = { inFlight: 'in_flight', completed: 'completed', released: 'released' } as const;

/** The columns every console list shows for a key. */
export const toKeySummary = (row: KeyRow) => ({
  key: row.key,
  actorId: row.actor_id,
  status: statusView[row.status],
  method: row.method,
  route: row.path,
  recoveryPoint: row.recovery_point,
  ...(row.holder === null ? {} : { holder: row.holder }),
  ...(row.locked_until === null ? {} : { leaseExpiresAt: row.locked_until.toISOString() }),
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const lookupLimit = 20;

/**
 * The console's two lookups (tenant, key or resource id, limit), each served by an index of the key table: its
 * `(tenant_id, key)` index, and the inverted index of the ids each stored response names. Neither reads stored bodies.
 */
export const keyLookupStatements = {
  byKey: `SELECT ${keyColumns} FROM idempotency_keys WHERE tenant_id = $1 AND key = $2 ORDER BY created_at LIMIT $3`,
  byResource: `SELECT ${keyColumns} FROM idempotency_keys
    WHERE resource_ids @> jsonb_build_array($2::text) AND tenant_id = $1
    ORDER BY created_at LIMIT $3`,
} as const;

/**
 * Keys of a tenant (any actor) by the key itself, or by a resource their stored response names (the id of an order,
 * invoice or payment appears in the body of the command that created or changed it). Oldest first.
 */
const findKeyRows = async (
  pool: Pool,
  tenantId: string,
  query: { readonly key?: string | undefined; readonly resource?: string | undefined },
): Promise<readonly KeyRow[]> => {
  const { rows } =
    query.key !== undefined
      ? await pool.query<KeyRow>(keyLookupStatements.byKey, [tenantId, query.key, lookupLimit])
      : await pool.query<KeyRow>(keyLookupStatements.byResource, [
          tenantId,
          (query.resource ?? '').toLowerCase(),
          lookupLimit,
        ]);
  return rows;
};

/**
 * The keys a lookup names, each with its whole key log read from the event store: every event as stored (type, time,
 * data), so the timeline shows claims, plans, recovery points, lease hand-overs and the stored response whatever
 * shape their payloads take; a secret sealed in any of them (a webhook endpoint's) shows as `[redacted]`. Card tokens
 * are never there: the key log holds only their HMAC references.
 *
 * @example
 * const keys = await lookUpKeys({ pool, eventStore }, tenantId, { key: 'pay-4711' });
 */
export const lookUpKeys = async (
  deps: { readonly pool: Pool; readonly eventStore: EventStore },
  tenantId: string,
  query: { readonly key?: string | undefined; readonly resource?: string | undefined },
): Promise<KeyTimelineView[]> => {
  const rows = await findKeyRows(deps.pool, tenantId, query);
  return Promise.all(
    rows.map(async (row) => {
      const events = await deps.eventStore.readStream(row.stream);
      return {
        ...toKeySummary(row),
        ...(row.response_status === null
          ? {}
          : {
              response: {
                status: row.response_status,
                headers: row.response_headers ?? {},
                body: redactText(row.response_body ?? ''),
              },
            }),
        ...(row.release_reason === null ? {} : { releaseReason: row.release_reason }),
        events: events.map((event) => ({
          revision: event.revision.toString(),
          type: event.type,
          recordedAt: event.recordedAt.toISOString(),
          position: formatPosition(event.position),
          data: redacted(event.data),
        })),
      };
    }),
  );
};

/**
 * A tenant's keys still in flight, oldest first; `leaseExpired` marks those the completer will finish.
 *
 * @example
 * const keys = await listKeysInFlight(pool, tenantId, new Date());
 */
export const listKeysInFlight = async (pool: Pool, tenantId: string, now: Date) => {
  const { rows } = await pool.query<KeyRow>(
    `SELECT ${keyColumns} FROM idempotency_keys WHERE tenant_id = $1 AND status = 'inFlight'
      ORDER BY created_at LIMIT 100`,
    [tenantId],
  );
  return rows.map((row) => ({
    ...toKeySummary(row),
    leaseExpired: row.locked_until !== null && row.locked_until <= now,
  }));
};
