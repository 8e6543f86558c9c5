export {
  getWebhookEndpoint,
  listWebhookAttempts,
  listWebhookEndpoints,
  listWebhookMessages,
  redeliverWebhookMessage,
  webhookDeliveryMetrics,
} from './delivery-state.queries.js';
export type {
  WebhookAttemptView,
  WebhookDeliveryMetrics,
  WebhookEndpointView,
  WebhookMessageView,
} from './delivery-state.queries.js';
export {
  logClockSkewMs,
  logMarkBefore,
  logMarkIntervalMs,
  recordLogMark,
  thinLogMarks,
} from './log-marks.js';
export { defaultMaxReplayEvents, replayWebhookRange } from './replay-from-log.js';
export type { WebhookReplay } from './replay-from-log.js';
export { deleteWebhookMessage, pruneDeliveredWebhookMessages } from './webhook-message-removal.js';
export type { PrunedWebhookMessages, WebhookMessageDeletion } from './webhook-message-removal.js';
