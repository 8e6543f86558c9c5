export { idempotencyKeysProjection, idempotencyKeysTable } from './idempotency-keys.projection.js';
export type { IdempotencyKeyRow, IdempotencyKeyStatus } from './idempotency-keys.projection.js';
export { abandonedKeyCursor, getIdempotencyKey, listAbandonedKeys } from './idempotency-keys.queries.js';
export type { AbandonedKeyCursor } from './idempotency-keys.queries.js';
export { removeKeyRowsOfStreams, sweepExpiredKeys } from './sweep-expired-keys.js';
export type { KeySweep, KeySweepCursor, SweepExpiredKeysOptions } from './sweep-expired-keys.js';
export { expiredKeySweeper } from './expired-key-sweeper.js';
export type { ExpiredKeySweeperOptions } from './expired-key-sweeper.js';
export {
  completeAbandonedKeysOnce,
  newCompleterWalk,
  startAbandonedKeyCompleter,
} from './abandoned-key-completer.js';
export type {
  CompleterOptions,
  CompleterWalk,
  CompleterWalkReport,
  UnresumableKey,
} from './abandoned-key-completer.js';
export { findUnresumableKeys } from './unresumable-keys.js';
export type { FindUnresumableKeysOptions } from './unresumable-keys.js';
