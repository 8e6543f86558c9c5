export {
  getWebhookEndpoint,
  listWebhookAttempts,
  listWebhookEndpoints,
  listWebhookMessages,
  redeliverWebhookMessage,
  replayWebhookMessages,
  webhookDeliveryMetrics,
} from './delivery-state.queries.js';
export type {
  WebhookAttemptView,
  WebhookDeliveryMetrics,
  WebhookEndpointView,
  WebhookMessageView,
} from './delivery-state.queries.js';
