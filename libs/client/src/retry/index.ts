export { DEFAULT_RETRY_POLICY, resolveRetryPolicy } from './retry-policy.js';
export type { RetryPolicy } from './retry-policy.js';
export { backoffCeiling, retryDelay } from './backoff.js';
export type { RandomSource } from './backoff.js';
export { parseRetryAfter } from './retry-after.js';
