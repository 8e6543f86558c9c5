import type { Message } from '../decider/index.js';
import type { TenantId, Timestamp, WebhookEndpointId } from '../values/index.js';
import type { WebhookEventType } from './webhook-event-types.js';

interface EndpointFact {
  readonly tenantId: TenantId;
  readonly endpointId: WebhookEndpointId;
}

/**
 * The secret is part of the endpoint's history, sealed under the server's key: the relay unseals what the log says
 * and signs with it.
 */
export type WebhookEndpointRegistered = Message<
  'WebhookEndpointRegistered',
  EndpointFact & {
    readonly url: string;
    readonly eventTypes: readonly WebhookEventType[];
    readonly sealedSecret: string;
    readonly registeredAt: Timestamp;
  }
>;

export type WebhookEndpointSecretRotated = Message<
  'WebhookEndpointSecretRotated',
  EndpointFact & {
    readonly sealedSecret: string;
    readonly rotatedAt: Timestamp;
    readonly previousSecretExpiresAt: Timestamp;
  }
>;

export type WebhookEndpointDisabled = Message<
  'WebhookEndpointDisabled',
  EndpointFact & { readonly reason: string; readonly disabledAt: Timestamp }
>;

export type WebhookEndpointEnabled = Message<
  'WebhookEndpointEnabled',
  EndpointFact & { readonly enabledAt: Timestamp }
>;

export type WebhookEndpointDeleted = Message<
  'WebhookEndpointDeleted',
  EndpointFact & { readonly deletedAt: Timestamp }
>;

export type WebhookEndpointEvent =
  | WebhookEndpointRegistered
  | WebhookEndpointSecretRotated
  | WebhookEndpointDisabled
  | WebhookEndpointEnabled
  | WebhookEndpointDeleted;

/** Every endpoint event type, for global reads filtered by type. */
export const webhookEndpointEventTypes = [
  'WebhookEndpointRegistered',
  'WebhookEndpointSecretRotated',
  'WebhookEndpointDisabled',
  'WebhookEndpointEnabled',
  'WebhookEndpointDeleted',
] as const satisfies readonly WebhookEndpointEvent['type'][];
