export { registerEndpointInLog } from './register-endpoint.js';
export { startWebhookReceiver } from './webhook-receiver.js';
export type { ReceivedRequest, WebhookReceiver, WebhookReceiverOptions } from './webhook-receiver.js';
