export { createWebhookSender } from './webhook-sender.js';
export type { GatewayEvent, WebhookSender, WebhookSenderOptions } from './webhook-sender.js';
