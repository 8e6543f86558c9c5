export {
  getWebhookEndpoint,
  listWebhookAttempts,
  listWebhookEndpoints,
  listWebhookMessages,
  redeliverWebhookMessage,
  replayWebhookMessages,
  webhookDeliveryMetrics,
} from './delivery-state/index.js';
export type {
  WebhookAttemptView,
  WebhookDeliveryMetrics,
  WebhookEndpointView,
  WebhookMessageView,
} from './delivery-state/index.js';
export { defaultRetryLadderMs, relayLeaseName, retryDelayMs, startWebhookRelay } from './relay/index.js';
export type {
  PendingMessage,
  RelayFaults,
  RelayLogger,
  RelayState,
  WebhookMessageBody,
  WebhookRelay,
  WebhookRelayOptions,
} from './relay/index.js';
export { migrateOutbox } from './schema/index.js';
