export { createIdempotencyExpress } from './idempotency-express.js';
export type { IdempotencyExpress, IdempotencyExpressOptions } from './idempotency-express.js';
