export { parseIdempotencyKeyHeader, IDEMPOTENCY_KEY_MIN_LENGTH, IDEMPOTENCY_KEY_MAX_LENGTH } from './header/index.js';
export type { IdempotencyKeyHeaderResult, IdempotencyKeyRejection } from './header/index.js';
export { uuidV5, deriveId, UUID_NAMESPACE_DNS, UUID_NAMESPACE_URL, ONCE_ID_NAMESPACE } from './ids/index.js';
export type { IdempotencyScope } from './ids/index.js';
