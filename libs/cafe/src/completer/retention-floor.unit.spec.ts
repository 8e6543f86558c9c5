import { describe, expect, it } from 'vitest';
import {
  assertKeyRetentionCoversRetries,
  cardRetryPolicyFromEnv,
  KeyRetentionTooShortError,
  settlementRetryWindowMs,
} from './retention-floor.js';

describe('the key retention floor', () => {
  it("is the lease plus the card settlement's retry window: the pauses up to its last attempt", () => {
    expect(settlementRetryWindowMs({ maxAttempts: 8, baseDelayMs: 5_000, maxDelayMs: 300_000 })).toBe(
      615_000,
    );
    expect(settlementRetryWindowMs({ maxAttempts: 1, baseDelayMs: 5_000, maxDelayMs: 300_000 })).toBe(0);
  });

  it('accepts the defaults, and a short retention with a short lease and short retries', () => {
    expect(() => assertKeyRetentionCoversRetries({})).not.toThrow();
    expect(() =>
      assertKeyRetentionCoversRetries({
        retentionSeconds: 5,
        leaseMs: 1_000,
        retryPolicy: { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 1_000 },
      }),
    ).not.toThrow();
  });

  it('refuses a retention shorter than the lease plus the retry window, naming both', () => {
    const refuse = () => assertKeyRetentionCoversRetries({ retentionSeconds: 600, leaseMs: 30_000 });
    expect(refuse).toThrow(KeyRetentionTooShortError);
    try {
      refuse();
    } catch (error) {
      expect(error).toMatchObject({
        code: 'key-retention-too-short',
        data: { retentionSeconds: 600, leaseMs: 30_000, settlementRetryWindowMs: 615_000 },
      });
    }
    // The floor itself is accepted; a second less is not.
    expect(() => assertKeyRetentionCoversRetries({ retentionSeconds: 645, leaseMs: 30_000 })).not.toThrow();
    expect(() => assertKeyRetentionCoversRetries({ retentionSeconds: 644, leaseMs: 30_000 })).toThrow(
      KeyRetentionTooShortError,
    );
  });

  it('reads the retry policy from its settings, each falling back to the default', () => {
    expect(cardRetryPolicyFromEnv({ ONCE_CARD_RETRY_ATTEMPTS: 3 })).toEqual({
      maxAttempts: 3,
      baseDelayMs: 5_000,
      maxDelayMs: 300_000,
    });
  });
});
