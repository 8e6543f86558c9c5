import type { PoolClient } from 'pg';
import type { RecordedEvent } from '@once/event-store';
import { isWebhookEventType } from '@once/domain/webhook-endpoints';
import type { WebhookEndpointEvent } from '@once/domain/webhook-endpoints';
import { tenantOf, webhookMessageBody } from './webhook-message.js';

/** Another relay moved the checkpoint: this one is no longer the leader and must stop writing. */
export class RelayCheckpointConflictError extends Error {
  constructor(readonly expected: string | null) {
    super(`the webhook relay's checkpoint is no longer ${expected ?? 'empty'}`);
    this.name = 'RelayCheckpointConflictError';
  }
}

/** The relay's checkpoint row. */
export const relayCheckpointName = 'webhook-relay';

/** Applies one endpoint event to the endpoints table, as the log says it happened (secrets stay sealed). */
const applyEndpointEvent = async (client: PoolClient, event: WebhookEndpointEvent): Promise<void> => {
  switch (event.type) {
    case 'WebhookEndpointRegistered': {
      const { endpointId, tenantId, url, eventTypes, sealedSecret, registeredAt } = event.data;
      await client.query(
        `INSERT INTO webhook_endpoints (endpoint_id, tenant_id, url, event_types, secret, status, registered_at)
         VALUES ($1, $2, $3, $4, $5, 'enabled', $6) ON CONFLICT (endpoint_id) DO NOTHING`,
        [endpointId, tenantId, url, eventTypes, sealedSecret, registeredAt],
      );
      return;
    }
    case 'WebhookEndpointSecretRotated':
      await client.query(
        `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = $2, secret = $3,
                updated_at = now() WHERE endpoint_id = $1`,
        [event.data.endpointId, event.data.previousSecretExpiresAt, event.data.sealedSecret],
      );
      return;
    case 'WebhookEndpointDisabled':
      await client.query(
        `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = $2, updated_at = now()
          WHERE endpoint_id = $1 AND status = 'enabled'`,
        [event.data.endpointId, event.data.reason],
      );
      return;
    case 'WebhookEndpointEnabled': {
      const enabled = await client.query(
        `UPDATE webhook_endpoints SET status = 'enabled', disabled_reason = NULL, failing_since = NULL,
                updated_at = now() WHERE endpoint_id = $1 AND status = 'disabled'`,
        [event.data.endpointId],
      );
      // What was held while it was disabled goes now, in log order, and so does every retry that was waiting.
      if (enabled.rowCount === 1)
        await client.query(
          `UPDATE webhook_messages SET status = 'pending', next_attempt_at = now()
            WHERE endpoint_id = $1 AND (status = 'held' OR (status = 'pending' AND next_attempt_at > now()))`,
          [event.data.endpointId],
        );
      return;
    }
    case 'WebhookEndpointDeleted':
      await client.query(
        `UPDATE webhook_endpoints SET status = 'deleted', updated_at = now() WHERE endpoint_id = $1`,
        [event.data.endpointId],
      );
      return;
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
};

/**
 * The event types some endpoint (enabled, or disabled and holding) subscribes to, as the endpoints table says at the
 * relay's checkpoint: the domain events the relay reads. A type nobody subscribes to is scanned past, not read.
 *
 * @example
 * const types = await subscribedEventTypes(client); // Set { 'OrderPlaced' }
 */
export const subscribedEventTypes = async (client: PoolClient): Promise<ReadonlySet<string>> => {
  const { rows } = await client.query<{ event_type: string }>(
    `SELECT DISTINCT unnest(event_types) AS event_type FROM webhook_endpoints WHERE status IN ('enabled', 'disabled')`,
  );
  return new Set(rows.map((row) => row.event_type));
};

/**
 * Enqueues domain events for every endpoint of their tenant subscribed to their type, in log order (the message's
 * `seq` follows the log): `pending` for an enabled endpoint, `held` for a disabled one (delivered once it is enabled
 * again). An event already enqueued for an endpoint is left as it is. Returns the endpoints with new pending messages.
 */
const enqueue = async (client: PoolClient, events: readonly RecordedEvent[]): Promise<readonly string[]> => {
  const deliverable = events.filter((event) => tenantOf(event) !== undefined);
  if (deliverable.length === 0) return [];
  const enqueued = await client.query<{ endpoint_id: string; status: 'pending' | 'held' }>(
    `INSERT INTO webhook_messages
       (endpoint_id, message_id, tenant_id, stream, event_type, body, appended_at, status, next_attempt_at)
     SELECT e.endpoint_id, m.message_id, m.tenant_id, m.stream, m.event_type, m.body, m.appended_at,
            CASE e.status WHEN 'enabled' THEN 'pending' ELSE 'held' END, now()
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[])
            WITH ORDINALITY AS m(message_id, tenant_id, stream, event_type, body, appended_at, ord)
       JOIN webhook_endpoints e
         ON e.tenant_id = m.tenant_id AND e.status IN ('enabled', 'disabled') AND m.event_type = ANY (e.event_types)
      ORDER BY m.ord, e.endpoint_id
     ON CONFLICT (endpoint_id, message_id) DO NOTHING
     RETURNING endpoint_id, status`,
    [
      deliverable.map((event) => event.id),
      deliverable.map((event) => tenantOf(event)),
      deliverable.map((event) => event.stream),
      deliverable.map((event) => event.type),
      deliverable.map(webhookMessageBody),
      deliverable.map((event) => event.recordedAt.toISOString()),
    ],
  );
  return enqueued.rows.filter((row) => row.status === 'pending').map((row) => row.endpoint_id);
};

/**
 * One page of the log in one transaction: endpoint events update the endpoints table, domain events are enqueued
 * for the endpoints that exist at that point of the log, and the checkpoint moves by compare-and-set (a relay that
 * lost its lease cannot move it). Returns the endpoints that got new messages.
 *
 * @example
 * await dispatchBatch(client, batch.events, { from: null, to: '0000…' });
 */
export const dispatchBatch = async (
  client: PoolClient,
  events: readonly RecordedEvent[],
  checkpoint: { readonly from: string | null; readonly to: string },
): Promise<ReadonlySet<string>> => {
  const endpoints = new Set<string>();
  await client.query('BEGIN');
  try {
    const moved = await client.query(
      `UPDATE webhook_relay_checkpoints SET position = $2, updated_at = now()
        WHERE name = $1 AND position IS NOT DISTINCT FROM $3`,
      [relayCheckpointName, checkpoint.to, checkpoint.from],
    );
    if (moved.rowCount !== 1) throw new RelayCheckpointConflictError(checkpoint.from);
    let run: RecordedEvent[] = [];
    for (const event of events) {
      if (isWebhookEventType(event.type)) {
        run.push(event);
        continue;
      }
      for (const endpoint of await enqueue(client, run)) endpoints.add(endpoint);
      run = [];
      await applyEndpointEvent(client, event as unknown as WebhookEndpointEvent);
    }
    for (const endpoint of await enqueue(client, run)) endpoints.add(endpoint);
    await client.query('COMMIT');
    return endpoints;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
};
