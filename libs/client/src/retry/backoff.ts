import type { RetryPolicy } from './retry-policy.js';

/** A uniform random number in [0, 1), like `Math.random`. */
export type RandomSource = () => number;

/**
 * The ceiling of the wait before retry number `retry` (0 for the wait after the first attempt):
 * `min(maxDelayMs, baseDelayMs * 2^retry)`.
 *
 * @param policy base and cap.
 * @param retry 0-based retry number.
 * @example
 * backoffCeiling({ ...DEFAULT_RETRY_POLICY }, 2); // 1200
 */
export const backoffCeiling = (
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>,
  retry: number,
): number => Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);

/**
 * The wait before a retry. Full jitter: a uniform draw from [0, ceiling], so clients that failed together do not
 * come back together. A `Retry-After` from the server is a floor (the wait is at least that long), and the cap
 * bounds both: the result is always in [0, maxDelayMs].
 *
 * @param policy base and cap.
 * @param retry 0-based retry number.
 * @param random uniform source in [0, 1).
 * @param retryAfterMs what the server's `Retry-After` asked for, if it sent one.
 * @example
 * const wait = retryDelay(policy, 0, Math.random, 2_000); // between 2000 and policy.maxDelayMs
 */
export const retryDelay = (
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>,
  retry: number,
  random: RandomSource,
  retryAfterMs?: number,
): number => {
  const draw = Math.min(Math.max(random(), 0), 1);
  const jittered = Math.floor(draw * backoffCeiling(policy, retry));
  const floor = retryAfterMs === undefined ? 0 : Math.max(0, retryAfterMs);
  return Math.min(policy.maxDelayMs, Math.max(jittered, floor));
};
