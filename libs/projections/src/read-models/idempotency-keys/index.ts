export { idempotencyKeysProjection, idempotencyKeysTable } from './idempotency-keys.projection.js';
export type { IdempotencyKeyRow, IdempotencyKeyStatus } from './idempotency-keys.projection.js';
export { getIdempotencyKey, listAbandonedKeys } from './idempotency-keys.queries.js';
