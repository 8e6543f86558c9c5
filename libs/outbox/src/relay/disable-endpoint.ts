import { randomUUID } from 'node:crypto';
import type { EventStore, ExpectedRevision } from '@once/event-store';
import { asTenantId, asWebhookEndpointId, foldEvents, webhookEndpointStream } from '@once/domain';
import { webhookEndpointDecider } from '@once/domain/webhook-endpoints';
import type { WebhookEndpointEvent } from '@once/domain/webhook-endpoints';
import type { EndpointRow } from './endpoint-row.js';

/**
 * Records that the relay disabled an endpoint, through the endpoint's own decider (a no-op when it is already
 * disabled or gone), so its history says when and why.
 *
 * @example
 * await disableEndpoint(store, endpoint, 'no delivery succeeded since …', new Date());
 */
export const disableEndpoint = async (
  store: EventStore,
  endpoint: EndpointRow,
  reason: string,
  now: Date,
): Promise<void> => {
  const endpointId = asWebhookEndpointId(endpoint.endpointId);
  const stream = webhookEndpointStream(asTenantId(endpoint.tenantId), endpointId);
  const recorded = await store.readStream(stream);
  const revision: ExpectedRevision = recorded.at(-1)?.revision ?? 'no_stream';
  const state = foldEvents(
    webhookEndpointDecider,
    recorded.map(({ type, data }) => ({ type, data }) as WebhookEndpointEvent),
  );
  if (state.status !== 'enabled') return;
  const events = webhookEndpointDecider.decide(
    { type: 'DisableWebhookEndpoint', data: { endpointId, reason, disabledAt: now.toISOString() } },
    state,
  );
  await store.appendToStream(
    stream,
    events.map((event) => ({ id: randomUUID(), ...event })),
    { expectedRevision: revision },
  );
};
