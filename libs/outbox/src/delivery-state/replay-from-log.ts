import type { Pool } from 'pg';
import type { EventStore, GlobalPosition, RecordedEvent } from '@once/event-store';
import { streamPrefixes } from '@once/domain';
import { tenantOf, webhookMessageBody } from '../relay/webhook-message.js';
import { logClockSkewMs, logMarkBefore } from './log-marks.js';

/** The most log events one replay reads (the endpoint's tenant and event types) unless told otherwise. */
export const defaultMaxReplayEvents = 10_000;

const pageSize = 1_000;

/** How a replay ended. */
export type WebhookReplay =
  | { readonly outcome: 'replayed'; readonly messages: number }
  | { readonly outcome: 'not-found' }
  | { readonly outcome: 'too-many-events'; readonly maxEvents: number };

interface ReplayedEndpoint {
  readonly tenantId: string;
  readonly eventTypes: readonly string[];
}

/**
 * The endpoint's events appended in `[from, to)`, read from the log (from the mark before `from`), in log order;
 * undefined when reading them would take more than `maxEvents` events of the tenant and types.
 */
const readRange = async (
  pool: Pool,
  store: EventStore,
  endpoint: ReplayedEndpoint,
  range: { readonly from: Date; readonly to: Date },
  maxEvents: number,
): Promise<RecordedEvent[] | undefined> => {
  const prefixes = Object.values(streamPrefixes)
    .filter((prefix) => prefix !== streamPrefixes.webhookEndpoint)
    .map((prefix) => `${prefix}${endpoint.tenantId}-`);
  const end = range.to.getTime() + logClockSkewMs;
  let after: GlobalPosition | undefined = await logMarkBefore(pool, range.from);
  const inRange: RecordedEvent[] = [];
  let read = 0;
  for (;;) {
    const page = await store.readAll({
      ...(after ? { after } : {}),
      filter: { eventTypes: endpoint.eventTypes, streamPrefixes: prefixes },
      maxCount: pageSize,
    });
    for (const event of page.events) {
      const at = event.recordedAt.getTime();
      if (at >= end) return inRange;
      if (++read > maxEvents) return undefined;
      if (at >= range.from.getTime() && at < range.to.getTime() && tenantOf(event) === endpoint.tenantId)
        inRange.push(event);
    }
    if (page.caughtUp || page.events.length === 0 || page.checkpoint === undefined) return inRange;
    after = page.checkpoint;
  }
};

/**
 * Sends the endpoint every event of its tenant and types appended in `[from, to)` again, read from the log (not only
 * the messages once enqueued: events from before it was registered, pruned or deleted messages too), in log order,
 * each with its `webhook-id` and body as the first time. A message of the range already there starts over (fresh
 * ladder, after the endpoint's other pending messages). While the endpoint is disabled they are held. Refused
 * (`too-many-events`) when the range holds more than `maxEvents` log events (`defaultMaxReplayEvents`): replay
 * shorter ranges.
 *
 * @example
 * const replay = await replayWebhookRange({ pool, store }, endpointId, { from, to }, { maxEvents: 10_000 });
 */
export const replayWebhookRange = async (
  deps: { readonly pool: Pool; readonly store: EventStore },
  endpointId: string,
  range: { readonly from: Date; readonly to: Date },
  options: { readonly maxEvents?: number } = {},
): Promise<WebhookReplay> => {
  const { pool, store } = deps;
  const maxEvents = options.maxEvents ?? defaultMaxReplayEvents;
  const row = (
    await pool.query<{ tenant_id: string; event_types: string[] }>(
      `SELECT tenant_id, event_types FROM webhook_endpoints WHERE endpoint_id = $1 AND status <> 'deleted'`,
      [endpointId],
    )
  ).rows[0];
  if (!row) return { outcome: 'not-found' };
  const events = await readRange(
    pool,
    store,
    { tenantId: row.tenant_id, eventTypes: row.event_types },
    range,
    maxEvents,
  );
  if (events === undefined) return { outcome: 'too-many-events', maxEvents };
  if (events.length === 0) return { outcome: 'replayed', messages: 0 };
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // Holds off an enable being applied meanwhile, so what this inserts as held is released by it.
    const endpoint = await client.query<{ status: 'enabled' | 'disabled' | 'deleted' }>(
      'SELECT status FROM webhook_endpoints WHERE endpoint_id = $1 FOR SHARE',
      [endpointId],
    );
    const status = endpoint.rows[0]?.status;
    if (status === undefined || status === 'deleted') {
      await client.query('ROLLBACK');
      return { outcome: 'not-found' };
    }
    const ids = events.map((event) => event.id);
    // Removed and inserted again rather than updated, so the range's messages go in log order.
    await client.query(
      'DELETE FROM webhook_messages WHERE endpoint_id = $1 AND message_id = ANY ($2::text[])',
      [endpointId, ids],
    );
    const inserted = await client.query(
      `INSERT INTO webhook_messages
         (endpoint_id, message_id, tenant_id, stream, event_type, body, appended_at, status, next_attempt_at)
       SELECT $1, m.message_id, $2, m.stream, m.event_type, m.body, m.appended_at, $3, now()
         FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])
              WITH ORDINALITY AS m(message_id, stream, event_type, body, appended_at, ord)
        ORDER BY m.ord`,
      [
        endpointId,
        row.tenant_id,
        status === 'enabled' ? 'pending' : 'held',
        ids,
        events.map((event) => event.stream),
        events.map((event) => event.type),
        events.map(webhookMessageBody),
        events.map((event) => event.recordedAt.toISOString()),
      ],
    );
    await client.query('COMMIT');
    return { outcome: 'replayed', messages: inserted.rowCount ?? 0 };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
};
