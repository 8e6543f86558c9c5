export { createTestDatabase, freshTenantId } from './postgres/index.js';
export type { TestDatabase } from './postgres/index.js';
