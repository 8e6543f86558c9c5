import type { Message } from '../decider/index.js';
import type { TenantId, Timestamp, WebhookEndpointId } from '../values/index.js';

/**
 * Registers an endpoint: where to deliver, which event types, and the secret the server generated for it, sealed
 * (the domain never sees a secret in plain text).
 */
export type RegisterWebhookEndpoint = Message<
  'RegisterWebhookEndpoint',
  {
    readonly tenantId: TenantId;
    readonly endpointId: WebhookEndpointId;
    readonly url: string;
    readonly eventTypes: readonly string[];
    readonly sealedSecret: string;
    readonly registeredAt: Timestamp;
  }
>;

/** Replaces the secret (sealed); the previous one still signs deliveries until `previousSecretExpiresAt`. */
export type RotateWebhookEndpointSecret = Message<
  'RotateWebhookEndpointSecret',
  {
    readonly endpointId: WebhookEndpointId;
    readonly sealedSecret: string;
    readonly rotatedAt: Timestamp;
    readonly previousSecretExpiresAt: Timestamp;
  }
>;

/** Stops deliveries (the relay does it to an endpoint that failed too long, saying why). */
export type DisableWebhookEndpoint = Message<
  'DisableWebhookEndpoint',
  { readonly endpointId: WebhookEndpointId; readonly reason: string; readonly disabledAt: Timestamp }
>;

export type EnableWebhookEndpoint = Message<
  'EnableWebhookEndpoint',
  { readonly endpointId: WebhookEndpointId; readonly enabledAt: Timestamp }
>;

export type DeleteWebhookEndpoint = Message<
  'DeleteWebhookEndpoint',
  { readonly endpointId: WebhookEndpointId; readonly deletedAt: Timestamp }
>;

export type WebhookEndpointCommand =
  | RegisterWebhookEndpoint
  | RotateWebhookEndpointSecret
  | DisableWebhookEndpoint
  | EnableWebhookEndpoint
  | DeleteWebhookEndpoint;
