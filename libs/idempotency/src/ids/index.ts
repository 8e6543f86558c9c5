export { uuidV5, UUID_NAMESPACE_DNS, UUID_NAMESPACE_URL } from './uuid-v5.js';
export { deriveId, ONCE_ID_NAMESPACE } from './derive-id.js';
export type { IdempotencyScope } from './derive-id.js';
