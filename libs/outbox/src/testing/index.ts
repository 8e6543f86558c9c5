export { registerEndpointInLog } from './register-endpoint.js';
export { startWebhookReceiver } from './webhook-receiver.js';
export type { ReceivedRequest, WebhookReceiver, WebhookReceiverOptions } from './webhook-receiver.js';
export { useRelayTestBed } from './relay-test-bed.js';
export type { RelayTestBed } from './relay-test-bed.js';
