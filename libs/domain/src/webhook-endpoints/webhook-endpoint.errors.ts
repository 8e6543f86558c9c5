import { DomainError } from '../errors/index.js';
import type { WebhookEndpointId } from '../shared/index.js';

export class WebhookEndpointNotFound extends DomainError<
  'webhook-endpoint-not-found',
  { endpointId: WebhookEndpointId }
> {
  constructor(data: { endpointId: WebhookEndpointId }, options?: ErrorOptions) {
    super('webhook-endpoint-not-found', data, `webhook endpoint ${data.endpointId} does not exist`, options);
  }
}

export class WebhookEndpointAlreadyRegistered extends DomainError<
  'webhook-endpoint-already-registered',
  { endpointId: WebhookEndpointId }
> {
  constructor(data: { endpointId: WebhookEndpointId }, options?: ErrorOptions) {
    super(
      'webhook-endpoint-already-registered',
      data,
      `webhook endpoint ${data.endpointId} is already registered`,
      options,
    );
  }
}

export class InvalidWebhookEventTypes extends DomainError<
  'invalid-webhook-event-types',
  { unknown: readonly string[] }
> {
  constructor(data: { unknown: readonly string[] }, options?: ErrorOptions) {
    super(
      'invalid-webhook-event-types',
      data,
      data.unknown.length === 0
        ? 'an endpoint subscribes to at least one event type'
        : `unknown event types: ${data.unknown.join(', ')}`,
      options,
    );
  }
}
