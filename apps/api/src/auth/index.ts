export { apiKeyId, apiKeyMigrations, createApiKeyStore, generateApiKey, hashApiKey } from './api-keys.js';
export type { ApiKeyRecord, ApiKeyStore, ApiKeyStoreOptions, Principal } from './api-keys.js';
