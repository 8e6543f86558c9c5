export { signWebhook, webhookHeaders } from './sign-webhook.js';
export type { WebhookContent, WebhookHeaders } from './sign-webhook.js';
export { defaultToleranceSeconds, verifyWebhook } from './verify-webhook.js';
export type { VerifyWebhookInput, WebhookRefusal, WebhookVerification } from './verify-webhook.js';
