export {
  decodeWebhookSecret,
  generateWebhookSecret,
  InvalidWebhookSecretError,
  isWebhookSecret,
} from './webhook-secret.js';
export {
  createSecretsKeyring,
  generateSecretsKey,
  InvalidSecretsKeyError,
  isSealedSecret,
  parseSecretsKeys,
  replaceSealedSecrets,
  secretsKeysProblem,
  UnsealError,
} from './secrets-keyring.js';
export type { SecretsKeyring } from './secrets-keyring.js';
export { readOrCreateSecretsKeyFile } from './secrets-key-file.js';
