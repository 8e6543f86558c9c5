export { signWebhook, verifyWebhook } from './webhook-signature.js';
export { createWebhookSender } from './webhook-sender.js';
export type { GatewayEvent, WebhookSender, WebhookSenderOptions } from './webhook-sender.js';
