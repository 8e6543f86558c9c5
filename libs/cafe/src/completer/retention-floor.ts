import { settlementRetryDelayMs } from '@once/domain/card-payments';
import type { SettlementRetryPolicy } from '@once/domain/card-settlements';
import { defaultSettlementRetryPolicy } from '../invoices/card-payment-workflow.js';

/** The lease a key is held for when none is set (the engine's default). */
const defaultLeaseMs = 30_000;
/** Key retention when none is set (the engine's default). */
const defaultRetentionSeconds = 86_400;

/**
 * How long a card payment's settlement keeps trying after its first unknown outcome: the pauses between its
 * attempts, up to the last one (after which the payment waits for an operator).
 *
 * @example
 * settlementRetryWindowMs({ maxAttempts: 8, baseDelayMs: 5_000, maxDelayMs: 300_000 }); // 615_000
 */
export const settlementRetryWindowMs = (policy: SettlementRetryPolicy): number => {
  let window = 0;
  for (let attempt = 1; attempt < policy.maxAttempts; attempt += 1)
    window += settlementRetryDelayMs(policy, attempt);
  return window;
};

/** The key retention is shorter than a key may stay in flight for reasons the service expects. */
export class KeyRetentionTooShortError extends Error {
  readonly code = 'key-retention-too-short';

  constructor(
    readonly data: {
      readonly retentionSeconds: number;
      readonly leaseMs: number;
      readonly settlementRetryWindowMs: number;
    },
  ) {
    const floorSeconds = Math.ceil((data.leaseMs + data.settlementRetryWindowMs) / 1000);
    super(
      `key retention ${String(data.retentionSeconds)} s (ONCE_KEY_RETENTION_SECONDS) is shorter than the lease ` +
        `${String(data.leaseMs)} ms (ONCE_LEASE_MS) plus the card settlement's retry window ` +
        `${String(data.settlementRetryWindowMs)} ms (ONCE_CARD_RETRY_*): set at least ${String(floorSeconds)} s`,
    );
    this.name = 'KeyRetentionTooShortError';
  }
}

/**
 * Refuses a key retention shorter than the lease plus the card settlement's retry window: a client's retry that
 * late must still find its key. Each main calls it with its settings before it starts anything.
 *
 * @throws KeyRetentionTooShortError naming both numbers
 * @example
 * assertKeyRetentionCoversRetries({ retentionSeconds: env.ONCE_KEY_RETENTION_SECONDS, leaseMs: env.ONCE_LEASE_MS });
 */
export const assertKeyRetentionCoversRetries = (settings: {
  readonly retentionSeconds?: number | undefined;
  readonly leaseMs?: number | undefined;
  readonly retryPolicy?: SettlementRetryPolicy | undefined;
}): void => {
  const retentionSeconds = settings.retentionSeconds ?? defaultRetentionSeconds;
  const leaseMs = settings.leaseMs ?? defaultLeaseMs;
  const window = settlementRetryWindowMs(settings.retryPolicy ?? defaultSettlementRetryPolicy);
  if (retentionSeconds * 1000 < leaseMs + window) {
    throw new KeyRetentionTooShortError({ retentionSeconds, leaseMs, settlementRetryWindowMs: window });
  }
};

/**
 * The card settlement's retry policy from the `ONCE_CARD_RETRY_*` settings, each falling back to the default's.
 *
 * @example
 * const retryPolicy = cardRetryPolicyFromEnv(env);
 */
export const cardRetryPolicyFromEnv = (env: {
  readonly ONCE_CARD_RETRY_ATTEMPTS?: number | undefined;
  readonly ONCE_CARD_RETRY_BASE_MS?: number | undefined;
  readonly ONCE_CARD_RETRY_MAX_MS?: number | undefined;
}): SettlementRetryPolicy => ({
  maxAttempts: env.ONCE_CARD_RETRY_ATTEMPTS ?? defaultSettlementRetryPolicy.maxAttempts,
  baseDelayMs: env.ONCE_CARD_RETRY_BASE_MS ?? defaultSettlementRetryPolicy.baseDelayMs,
  maxDelayMs: env.ONCE_CARD_RETRY_MAX_MS ?? defaultSettlementRetryPolicy.maxDelayMs,
});
