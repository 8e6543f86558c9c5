import { randomUUID } from 'node:crypto';
import type { EventStore } from '@once/event-store';
import { asTenantId, asWebhookEndpointId, webhookEndpointStream } from '@once/domain';

/**
 * Registers a webhook endpoint straight in the log (as the api's command would), for tests and benchmarks that run
 * the relay without the api. Returns the endpoint's id.
 *
 * @example
 * const endpointId = await registerEndpointInLog(store, { tenantId, url: receiver.url, secret, eventTypes: ['OrderPlaced'] });
 */
export const registerEndpointInLog = async (
  store: EventStore,
  endpoint: {
    readonly tenantId: string;
    readonly url: string;
    readonly secret: string;
    readonly eventTypes: readonly string[];
  },
): Promise<string> => {
  const endpointId = randomUUID();
  await store.appendToStream(
    webhookEndpointStream(asTenantId(endpoint.tenantId), asWebhookEndpointId(endpointId)),
    [
      {
        id: randomUUID(),
        type: 'WebhookEndpointRegistered',
        data: { ...endpoint, endpointId, registeredAt: new Date().toISOString() },
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  return endpointId;
};
