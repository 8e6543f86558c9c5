import { describe, expect, it } from 'vitest';
import { percentile, soakRatios } from './soak-ratios.js';
import type { SoakSample } from './soak-ratios.js';

const sample = (seconds: number, events: number, keyEvents = events, webhookRows = events): SoakSample => ({
  seconds,
  requests: seconds * 10,
  events,
  streams: 0,
  key_events: keyEvents,
  key_streams: 0,
  key_rows: 0,
  webhook_rows: webhookRows,
  database_bytes: 0,
  keyed_p50_ms: 1,
  keyed_p99_ms: 2,
});

describe('the soak verdicts', () => {
  it('read storage that levels off as a small growth ratio, and steady growth as one', () => {
    const levelling = [0, 10, 20, 30, 40, 50, 60].map((seconds) =>
      sample(seconds, Math.min(seconds, 20) * 100 + seconds),
    );
    const steady = [0, 10, 20, 30, 40, 50, 60].map((seconds) => sample(seconds, seconds * 100, 0));
    expect(soakRatios(levelling, [1]).storage_growth_ratio).toBeLessThan(0.1);
    expect(soakRatios(levelling, [1]).webhook_storage_growth_ratio).toBeLessThan(0.1);
    expect(soakRatios(steady, [1]).storage_growth_ratio).toBe(1);
    expect(soakRatios(steady, [1]).webhook_storage_growth_ratio).toBe(1);
  });

  it('keep the business events of the log out of the storage that must level off', () => {
    // Key logs and webhook rows level off while payments add events to the log for ever.
    const samples = [0, 10, 20, 30, 40, 50, 60].map((seconds) =>
      sample(seconds, Math.min(seconds, 20) * 100 + seconds * 50, Math.min(seconds, 20) * 50, 0),
    );
    expect(soakRatios(samples, [1]).storage_growth_ratio).toBe(0);
    expect(soakRatios(samples, [1]).log_growth_ratio).toBeGreaterThan(0.1);
  });

  it('compare the p99 of the last tenth of the requests with the first tenth', () => {
    const latencies = Array.from({ length: 1_000 }, (_, index) =>
      index < 100 ? 10 : index >= 900 ? 15 : 100,
    );
    expect(soakRatios([sample(0, 0), sample(1, 1)], latencies).p99_ratio).toBe(1.5);
    expect(percentile([5, 1, 3], 0.5)).toBe(3);
    expect(percentile([], 0.99)).toBe(0);
  });
});
