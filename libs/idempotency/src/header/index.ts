export {
  parseIdempotencyKeyHeader,
  IDEMPOTENCY_KEY_MIN_LENGTH,
  IDEMPOTENCY_KEY_MAX_LENGTH,
} from './idempotency-key-header.js';
export type { IdempotencyKeyHeaderResult, IdempotencyKeyRejection } from './idempotency-key-header.js';
