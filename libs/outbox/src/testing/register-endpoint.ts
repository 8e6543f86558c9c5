import { randomUUID } from 'node:crypto';
import type { EventStore } from '@once/event-store';
import { asTenantId, asWebhookEndpointId, webhookEndpointStream } from '@once/domain';
import type { SecretsKeyring } from '@once/webhooks';

/**
 * Registers a webhook endpoint straight in the log (as the api's command would), for tests and benchmarks that run
 * the relay without the api: the secret sealed with `secrets`, the relay's keyring. Returns the endpoint's id.
 *
 * @example
 * const endpointId = await registerEndpointInLog(store, keyring, { tenantId, url: receiver.url, secret, eventTypes: ['OrderPlaced'] });
 */
export const registerEndpointInLog = async (
  store: EventStore,
  secrets: SecretsKeyring,
  endpoint: {
    readonly tenantId: string;
    readonly url: string;
    readonly secret: string;
    readonly eventTypes: readonly string[];
  },
): Promise<string> => {
  const endpointId = randomUUID();
  const { secret, ...rest } = endpoint;
  await store.appendToStream(
    webhookEndpointStream(asTenantId(endpoint.tenantId), asWebhookEndpointId(endpointId)),
    [
      {
        id: randomUUID(),
        type: 'WebhookEndpointRegistered',
        data: {
          ...rest,
          sealedSecret: secrets.seal(secret),
          endpointId,
          registeredAt: new Date().toISOString(),
        },
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  return endpointId;
};
