import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffCeiling, DEFAULT_RETRY_POLICY, resolveRetryPolicy, retryDelay } from './index.js';

const policyArbitrary = fc.record({
  baseDelayMs: fc.integer({ min: 1, max: 5_000 }),
  maxDelayMs: fc.integer({ min: 1, max: 120_000 }),
});
const randomArbitrary = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

describe('full-jitter backoff', () => {
  it('uses the defaults 300 ms base, 10 s cap and 6 retries', () => {
    expect(DEFAULT_RETRY_POLICY).toMatchObject({ baseDelayMs: 300, maxDelayMs: 10_000, maxRetries: 6 });
    const ceilings = Array.from({ length: 7 }, (_, retry) => backoffCeiling(DEFAULT_RETRY_POLICY, retry));
    expect(ceilings).toEqual([300, 600, 1_200, 2_400, 4_800, 9_600, 10_000]);
  });

  it('stays within [0, min(cap, base * 2^attempt)] for every random draw', () => {
    fc.assert(
      fc.property(policyArbitrary, fc.nat({ max: 40 }), randomArbitrary, (policy, retry, draw) => {
        const delay = retryDelay(policy, retry, () => draw);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry));
      }),
    );
  });

  it('spreads over the whole interval: the lowest draw waits 0, the highest nearly the ceiling', () => {
    expect(retryDelay(DEFAULT_RETRY_POLICY, 3, () => 0)).toBe(0);
    expect(retryDelay(DEFAULT_RETRY_POLICY, 3, () => 0.5)).toBe(1_200);
    expect(retryDelay(DEFAULT_RETRY_POLICY, 3, () => 0.999_999)).toBe(2_399);
    expect(retryDelay(DEFAULT_RETRY_POLICY, 9, () => 0.999_999)).toBe(9_999);
  });

  it('waits at least what Retry-After asks, but never longer than the cap', () => {
    fc.assert(
      fc.property(
        policyArbitrary,
        fc.nat({ max: 40 }),
        randomArbitrary,
        fc.nat({ max: 600_000 }),
        (policy, retry, draw, retryAfterMs) => {
          const delay = retryDelay(policy, retry, () => draw, retryAfterMs);
          expect(delay).toBeGreaterThanOrEqual(Math.min(policy.maxDelayMs, retryAfterMs));
          expect(delay).toBeLessThanOrEqual(policy.maxDelayMs);
          expect(delay).toBeGreaterThanOrEqual(retryDelay(policy, retry, () => draw));
        },
      ),
    );
    expect(retryDelay(DEFAULT_RETRY_POLICY, 0, () => 0.1, 2_000)).toBe(2_000);
    expect(retryDelay(DEFAULT_RETRY_POLICY, 0, () => 0.1, 3_600_000)).toBe(10_000);
  });

  it('rejects a policy with negative or fractional retry counts', () => {
    expect(() => resolveRetryPolicy({ baseDelayMs: -1 })).toThrow(RangeError);
    expect(() => resolveRetryPolicy({ maxRetries: 1.5 })).toThrow(RangeError);
    expect(resolveRetryPolicy({ maxRetries: 2 })).toEqual({ ...DEFAULT_RETRY_POLICY, maxRetries: 2 });
  });
});
