export { apiKeyMigrations, createApiKeyStore, generateApiKey, hashApiKey } from './api-keys.js';
export type { ApiKeyStore, Principal } from './api-keys.js';
