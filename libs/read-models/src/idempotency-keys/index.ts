export { idempotencyKeysProjection, idempotencyKeysTable } from './idempotency-keys.projection.js';
export type { IdempotencyKeyRow, IdempotencyKeyStatus } from './idempotency-keys.projection.js';
export { getIdempotencyKey, listAbandonedKeys } from './idempotency-keys.queries.js';
export { removeKeyRowsOfStreams, sweepExpiredKeys } from './sweep-expired-keys.js';
export type { KeySweep, KeySweepCursor, SweepExpiredKeysOptions } from './sweep-expired-keys.js';
export { expiredKeySweeper } from './expired-key-sweeper.js';
export type { ExpiredKeySweeperOptions } from './expired-key-sweeper.js';
export { abandonedKeyCompleter, completeAbandonedKeysOnce, startCompleter } from './abandoned-key-completer.js';
export type { CompleterOptions } from './abandoned-key-completer.js';
