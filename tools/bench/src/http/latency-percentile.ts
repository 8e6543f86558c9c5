/**
 * The latency below which `percentile` per cent of the answers came, nearest rank, in milliseconds rounded to
 * hundredths (autocannon's own histogram keeps whole milliseconds, too coarse for one connection); NaN with none.
 *
 * @example
 * latencyPercentile([0.84, 0.91, 1.37, 0.88], 50); // 0.88
 */
export const latencyPercentile = (latenciesMs: readonly number[], percentile: number): number => {
  if (latenciesMs.length === 0) return Number.NaN;
  const sorted = Float64Array.from(latenciesMs).sort();
  const rank = Math.max(1, Math.ceil((percentile / 100) * sorted.length));
  return Math.round((sorted[rank - 1] as number) * 100) / 100;
};
