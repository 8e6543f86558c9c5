export { toStoredRequest } from './intent.js';
export type { Intent, IntentMethod, IntentRequest, StoredRequest } from './intent.js';
export { formatIdempotencyKeyHeader, isValidIdempotencyKey } from './idempotency-key-header.js';
