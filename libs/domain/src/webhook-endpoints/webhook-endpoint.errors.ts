import { domainError } from '../errors/index.js';
import type { WebhookEndpointId } from '../shared/index.js';

export class WebhookEndpointNotFound extends domainError(
  'webhook-endpoint-not-found',
  (data: { endpointId: WebhookEndpointId }) => `webhook endpoint ${data.endpointId} does not exist`,
) {}

export class WebhookEndpointAlreadyRegistered extends domainError(
  'webhook-endpoint-already-registered',
  (data: { endpointId: WebhookEndpointId }) => `webhook endpoint ${data.endpointId} is already registered`,
) {}

export class InvalidWebhookEventTypes extends domainError(
  'invalid-webhook-event-types',
  (data: { unknown: readonly string[] }) =>
    data.unknown.length === 0
      ? 'an endpoint subscribes to at least one event type'
      : `unknown event types: ${data.unknown.join(', ')}`,
) {}
