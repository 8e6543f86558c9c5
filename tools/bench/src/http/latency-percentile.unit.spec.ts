import { describe, expect, it } from 'vitest';
import { latencyPercentile } from './latency-percentile.js';

describe('latencyPercentile', () => {
  it('answers the nearest rank, in milliseconds rounded to hundredths', () => {
    const latencies = [1.372, 0.841, 0.913, 0.884];
    expect(latencyPercentile(latencies, 50)).toBe(0.88);
    expect(latencyPercentile(latencies, 99)).toBe(1.37);
    expect(latencyPercentile(latencies, 1)).toBe(0.84);
  });

  it('sorts by value, not as text', () => {
    expect(latencyPercentile([10.5, 9.25, 100.125], 50)).toBe(10.5);
  });

  it('answers NaN for a phase with no answers', () => {
    expect(latencyPercentile([], 50)).toBeNaN();
  });
});
