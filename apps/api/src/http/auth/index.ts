export {
  apiKeyId,
  apiKeyMigrations,
  apiKeyRoles,
  createApiKeyStore,
  generateApiKey,
  hashApiKey,
} from './api-keys.js';
export type { ApiKeyRecord, ApiKeyRole, ApiKeyStore, ApiKeyStoreOptions, Principal } from './api-keys.js';
export { declarePublic, keyRoleAllows, routeRoles } from './route-roles.js';
export { documentRouteRoles, withRouteRole } from './openapi-roles.js';
export type { RouteRole } from './route-roles.js';
