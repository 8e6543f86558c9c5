export { defaultRetryLadderMs, retryDelayMs } from './retry-ladder.js';
export type { PendingMessage, RelayFaults, RelayLogger, WebhookRelayOptions } from './relay-settings.js';
export { defaultWebhookRetentionMs, relayLeaseName, startWebhookRelay } from './start-webhook-relay.js';
export type { RelayState, WebhookRelay } from './start-webhook-relay.js';
export type { WebhookMessageBody } from './webhook-message.js';
