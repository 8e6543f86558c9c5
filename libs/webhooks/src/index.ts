export { signWebhook, verifyWebhook } from './webhook-signature.js';
