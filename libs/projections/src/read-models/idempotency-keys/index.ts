export { idempotencyKeysProjection, idempotencyKeysTable } from './idempotency-keys.projection.js';
export type { IdempotencyKeyRow, IdempotencyKeyStatus } from './idempotency-keys.projection.js';
export { getIdempotencyKey, listAbandonedKeys } from './idempotency-keys.queries.js';
export { sweepExpiredKeys } from './sweep-expired-keys.js';
export type { SweepExpiredKeysOptions } from './sweep-expired-keys.js';
