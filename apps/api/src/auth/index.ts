export {
  apiKeyId,
  apiKeyMigrations,
  apiKeyRoles,
  createApiKeyStore,
  generateApiKey,
  hashApiKey,
} from './api-keys.js';
export type { ApiKeyRecord, ApiKeyRole, ApiKeyStore, ApiKeyStoreOptions, Principal } from './api-keys.js';
export { requireOperator } from './require-operator.js';
