export {
  decodeWebhookSecret,
  generateWebhookSecret,
  InvalidWebhookSecretError,
  isWebhookSecret,
} from './webhook-secret.js';
