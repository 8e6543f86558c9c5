export { decider as webhookEndpointDecider } from './webhook-endpoint.decider.js';
export type {
  PreviousWebhookSecret,
  RegisteredWebhookEndpoint,
  WebhookEndpointState,
} from './webhook-endpoint.decider.js';
export type {
  DeleteWebhookEndpoint,
  DisableWebhookEndpoint,
  EnableWebhookEndpoint,
  RegisterWebhookEndpoint,
  RotateWebhookEndpointSecret,
  WebhookEndpointCommand,
} from './webhook-endpoint.commands.js';
export { webhookEndpointEventTypes } from './webhook-endpoint.events.js';
export type {
  WebhookEndpointDeleted,
  WebhookEndpointDisabled,
  WebhookEndpointEnabled,
  WebhookEndpointEvent,
  WebhookEndpointRegistered,
  WebhookEndpointSecretRotated,
} from './webhook-endpoint.events.js';
export {
  InvalidWebhookEventTypes,
  WebhookEndpointAlreadyRegistered,
  WebhookEndpointNotFound,
} from './webhook-endpoint.errors.js';
export { isWebhookEventType, webhookEventTypes } from './webhook-event-types.js';
export type { WebhookEventType } from './webhook-event-types.js';
