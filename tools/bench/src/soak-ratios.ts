/** One sample of the soak: the log's size and the keyed latencies since the previous sample. */
export interface SoakSample {
  readonly seconds: number;
  readonly requests: number;
  readonly events: number;
  readonly streams: number;
  readonly key_events: number;
  readonly key_streams: number;
  /** Rows of the key table (the projection of the key logs). */
  readonly key_rows: number;
  /** Rows of the webhook delivery state (messages and attempts), which the relay prunes after its retention. */
  readonly webhook_rows: number;
  readonly database_bytes: number;
  readonly keyed_p50_ms: number;
  readonly keyed_p99_ms: number;
}

/** The value below which `fraction` of `values` lie (nearest rank); 0 for none. */
export const percentile = (values: ArrayLike<number>, fraction: number): number => {
  if (values.length === 0) return 0;
  const sorted = Array.from(values).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? 0;
};

const round = (value: number): number => Math.round(value * 1000) / 1000;

/** Growth over the last third of the samples ÷ growth over the first third (by sample time). */
const growthRatio = (samples: readonly SoakSample[], size: (sample: SoakSample) => number): number => {
  const first = samples[0];
  const last = samples.at(-1);
  if (!first || !last || last.seconds === first.seconds) return Number.NaN;
  const span = last.seconds - first.seconds;
  const at = (seconds: number) =>
    size(
      samples.reduce((best, sample) =>
        Math.abs(sample.seconds - seconds) < Math.abs(best.seconds - seconds) ? sample : best,
      ),
    );
  const early = at(first.seconds + span / 3) - size(first);
  const late = size(last) - at(last.seconds - span / 3);
  return round(early === 0 ? (late === 0 ? 0 : Number.POSITIVE_INFINITY) : late / early);
};

/**
 * The soak's verdicts. `storage_growth_ratio` is what Once keeps only for a while and must level off: the key logs,
 * the key table and the webhook delivery rows. `log_growth_ratio` is the whole log (events + stream rows), which also
 * holds the business events a system of record keeps for ever, so it grows with every payment by design.
 * `key_storage_growth_ratio` (key logs) and `webhook_storage_growth_ratio` (webhook messages + attempts) break the
 * first one down; `p99_ratio` is the keyed p99 of the last tenth of the requests ÷ the first tenth.
 *
 * @example
 * const { storage_growth_ratio } = soakRatios(samples, latencies);
 */
export const soakRatios = (
  samples: readonly SoakSample[],
  latencies: ArrayLike<number>,
): {
  storage_growth_ratio: number;
  log_growth_ratio: number;
  key_storage_growth_ratio: number;
  webhook_storage_growth_ratio: number;
  p99_ratio: number;
} => {
  const tenth = Math.floor(latencies.length / 10);
  const slice = (from: number, to: number) => Array.prototype.slice.call(latencies, from, to) as number[];
  const firstP99 = percentile(slice(0, tenth), 0.99);
  const lastP99 = percentile(slice(latencies.length - tenth, latencies.length), 0.99);
  return {
    storage_growth_ratio: growthRatio(
      samples,
      (sample) => sample.key_events + sample.key_streams + sample.key_rows + sample.webhook_rows,
    ),
    log_growth_ratio: growthRatio(samples, (sample) => sample.events + sample.streams),
    key_storage_growth_ratio: growthRatio(samples, (sample) => sample.key_events + sample.key_streams),
    webhook_storage_growth_ratio: growthRatio(samples, (sample) => sample.webhook_rows),
    p99_ratio: round(firstP99 === 0 ? Number.NaN : lastP99 / firstP99),
  };
};
