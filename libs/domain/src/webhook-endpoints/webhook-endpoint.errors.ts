import { domainError } from '../errors/index.js';
import type { WebhookEndpointId } from '../values/index.js';

/** One webhook endpoint. */
interface EndpointRef {
  readonly endpointId: WebhookEndpointId;
}

export class WebhookEndpointNotFound extends domainError('webhook-endpoint-not-found')<EndpointRef> {}
export class WebhookEndpointAlreadyRegistered extends domainError(
  'webhook-endpoint-already-registered',
)<EndpointRef> {}
export class InvalidWebhookEventTypes extends domainError('invalid-webhook-event-types')<{
  unknown: readonly string[];
}> {}
