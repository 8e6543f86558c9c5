export { startTestApi } from './test-api.js';
export type { TestApi, TestTenant } from './test-api.js';
