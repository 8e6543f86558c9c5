/** How a client retries one intent. Every field has a default ({@link DEFAULT_RETRY_POLICY}). */
export interface RetryPolicy {
  /** First backoff ceiling in ms: attempt n waits a random time in [0, min(maxDelayMs, baseDelayMs * 2^n)]. */
  readonly baseDelayMs: number;
  /** No wait is longer than this, not even one a `Retry-After` asks for. */
  readonly maxDelayMs: number;
  /** Retries after the first attempt (so `maxRetries + 1` attempts at most). */
  readonly maxRetries: number;
  /** One attempt, response body included, is aborted after this long. */
  readonly attemptTimeoutMs: number;
  /** The whole submission, waits included, gives up after this long. */
  readonly deadlineMs: number;
}

/** The defaults: 300 ms base, 10 s cap, 6 retries, 10 s per attempt, 60 s overall. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  baseDelayMs: 300,
  maxDelayMs: 10_000,
  maxRetries: 6,
  attemptTimeoutMs: 10_000,
  deadlineMs: 60_000,
};

/**
 * Fills the unset fields of a partial policy with the defaults and rejects nonsense (negative or non-finite numbers).
 *
 * @param policy the caller's overrides.
 * @example
 * const policy = resolveRetryPolicy({ maxRetries: 3 });
 */
export const resolveRetryPolicy = (policy: Partial<RetryPolicy> = {}): RetryPolicy => {
  const resolved = { ...DEFAULT_RETRY_POLICY, ...policy };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isFinite(value) || value < 0)
      throw new RangeError(`Retry policy ${name} must be a finite number >= 0`);
  }
  if (!Number.isInteger(resolved.maxRetries))
    throw new RangeError('Retry policy maxRetries must be an integer');
  return resolved;
};
