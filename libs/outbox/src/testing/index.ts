export { startWebhookReceiver } from './webhook-receiver.js';
export type { ReceivedRequest, WebhookReceiver, WebhookReceiverOptions } from './webhook-receiver.js';
