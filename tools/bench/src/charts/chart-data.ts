/** One bar: a side of a comparison (`ours`, `keyed`, …) and, when the results kept each round, their spread. */
export interface ChartBar {
  readonly side: string;
  readonly value: number;
  readonly spread?: { readonly min: number; readonly max: number };
}

/** Bars measured in one unit, compared with each other. */
export interface ChartGroup {
  readonly metric: string;
  readonly higherIsBetter: boolean;
  readonly bars: readonly ChartBar[];
}

/** What a results file says, as the chart shows it. */
export interface ChartData {
  readonly name: string;
  readonly groups: readonly ChartGroup[];
  /** The results' own ratios: `a_vs_b`, and verdicts named `…_ratio` (the soak's growth and p99 ratios). */
  readonly ratios: readonly { readonly name: string; readonly value: number }[];
  readonly measuredAt?: string;
  readonly rounds?: number;
}

const throughput = /^(.+)_(rps)$|^([a-z0-9]+)_(.*per_s)$/;
const latency = /^(.+)_(p\d+_ms)$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Each key's value in every round, when the results kept rounds (`rounds: [{ key: n, … }, …]`). */
const roundValues = (results: Record<string, unknown>): Map<string, number[]> => {
  const values = new Map<string, number[]>();
  const rounds = results['rounds'];
  if (!Array.isArray(rounds)) return values;
  for (const round of rounds) {
    if (!isRecord(round)) continue;
    for (const [key, value] of Object.entries(round)) {
      if (typeof value !== 'number' || key === 'round') continue;
      values.set(key, [...(values.get(key) ?? []), value]);
    }
  }
  return values;
};

/**
 * The ratios of a sweep (`sweep: [{ connections: 1, a_vs_b: n, … }, …]`) against the number of connections: one
 * group per ratio, one bar per number of connections; a ratio of latencies (`a_p50_vs_b`) is better lower.
 */
const sweepGroups = (results: Record<string, unknown>): ChartGroup[] => {
  const sweep = results['sweep'];
  if (!Array.isArray(sweep)) return [];
  const groups = new Map<string, ChartBar[]>();
  for (const point of sweep) {
    if (!isRecord(point) || typeof point['connections'] !== 'number') continue;
    for (const [key, value] of Object.entries(point)) {
      if (typeof value !== 'number' || !key.includes('_vs_')) continue;
      groups.set(key, [
        ...(groups.get(key) ?? []),
        { side: `${String(point['connections'])} connections`, value },
      ]);
    }
  }
  return [...groups].map(([ratio, bars]) => ({
    metric: `${ratio} by connections`,
    higherIsBetter: !/_p\d+_vs_/.test(ratio),
    bars,
  }));
};

/**
 * Reads a benchmark's results into chart groups: top-level numbers named `<side>_<metric>` where the metric is a
 * throughput (`…per_s`, `…rps`: higher is better) or a latency percentile (`p50_ms`: lower is better); sides that
 * share a metric are compared; a `sweep` adds each of its ratios against the number of connections. Everything shown
 * comes from the file.
 *
 * @example
 * toChartData('http', { keyed_rps: 617, plain_rps: 948, keyed_vs_plain: 0.65 });
 * // one group `rps` with bars keyed and plain, one ratio keyed_vs_plain
 */
export const toChartData = (name: string, results: unknown): ChartData => {
  if (!isRecord(results)) return { name, groups: [], ratios: [] };
  const perRound = roundValues(results);
  const groups = new Map<string, { higherIsBetter: boolean; bars: ChartBar[] }>();
  const ratios: { name: string; value: number }[] = [];
  for (const [key, value] of Object.entries(results)) {
    if (typeof value !== 'number') continue;
    if (key.includes('_vs_') || key.endsWith('_ratio')) {
      ratios.push({ name: key, value });
      continue;
    }
    const match = throughput.exec(key) ?? latency.exec(key);
    if (!match) continue;
    const [side = key, metric = key] = match.slice(1).filter((part) => part !== undefined);
    const group = groups.get(metric) ?? { higherIsBetter: throughput.test(key), bars: [] };
    const rounds = perRound.get(key);
    group.bars.push({
      side,
      value,
      ...(rounds && rounds.length > 1
        ? { spread: { min: Math.min(...rounds), max: Math.max(...rounds) } }
        : {}),
    });
    groups.set(metric, group);
  }
  const rounds = results['rounds'];
  const measuredAt = results['measured_at'];
  return {
    name,
    groups: [...[...groups].map(([metric, group]) => ({ metric, ...group })), ...sweepGroups(results)],
    ratios,
    ...(typeof measuredAt === 'string' ? { measuredAt } : {}),
    ...(typeof rounds === 'number' ? { rounds } : Array.isArray(rounds) ? { rounds: rounds.length } : {}),
  };
};
