import { readFile, writeFile } from 'node:fs/promises';
import type { HttpBenchResult } from './http-bench-result.js';
import type { PhaseCpu } from './phase-cpu.js';

const start = '<!-- http-sweep:start (npm run bench -- http --sweep writes this part) -->';
const end = '<!-- http-sweep:end -->';

const row = (cells: readonly (string | number)[]) => `| ${cells.join(' | ')} |`;
const ms = (value: number) => value.toFixed(2);

/** The sweep's table: Once's ratios to the article's, with shared commits on and off, and each side's latency. */
const sweepTable = (result: HttpBenchResult): string[] => [
  row([
    'connections',
    'keyed ÷ article',
    'shared commits off ÷ article',
    'no projector ÷ article',
    'replay ÷ article replay',
    'keyed p50 ÷ article p50',
    'keyed req/s',
    'article req/s',
    'p50 / p99 ms: keyed',
    'shared commits off',
    'article',
  ]),
  row(Array.from({ length: 11 }, () => '---')),
  ...(result.sweep ?? []).map((point) =>
    row([
      point.connections,
      point.keyed_vs_article,
      point.keyed_unshared_vs_article,
      point.keyed_projector_off_vs_article,
      point.replay_vs_article_replay,
      point.keyed_p50_vs_article,
      point.sides.keyed.rps,
      point.sides.article.rps,
      `${ms(point.sides.keyed.p50_ms)} / ${ms(point.sides.keyed.p99_ms)}`,
      `${ms(point.sides.keyed_unshared.p50_ms)} / ${ms(point.sides.keyed_unshared.p99_ms)}`,
      `${ms(point.sides.article.p50_ms)} / ${ms(point.sides.article.p99_ms)}`,
    ]),
  ),
];

const postgres = (cpu: PhaseCpu | undefined) =>
  cpu === undefined ? undefined : Object.values(cpu.postgres_us).reduce((total, each) => total + each, 0);

/** Where the CPU of an answered request went at 16 connections, Once with shared commits on and off, the article. */
const costTable = (result: HttpBenchResult): string[] => {
  const sides = [
    ['Once keyed', result.cpu_per_request.keyed],
    ['shared commits off', result.cpu_per_request.keyed_unshared],
    ['no projector', result.cpu_per_request.keyed_projector_off],
    ['article', result.cpu_per_request.article],
  ] as const;
  const line = (label: string, pick: (cpu: PhaseCpu | undefined) => number | undefined) =>
    row([label, ...sides.map(([, cpu]) => pick(cpu) ?? '–')]);
  return [
    row(['µs per answered request, 16 connections', ...sides.map(([name]) => name)]),
    row(Array.from({ length: sides.length + 1 }, () => '---')),
    line('the whole machine, busy', (cpu) => cpu?.machine_busy_us),
    line('the whole machine, idle', (cpu) => cpu?.machine_idle_us),
    line('the server process, all its threads', (cpu) => cpu?.server_us),
    line('PostgreSQL, all its backends of the side', postgres),
    line('of which the api', (cpu) => cpu?.postgres_us['once-api']),
    line('of which the projector', (cpu) => cpu?.postgres_us['once-projector']),
    line('the load generator', (cpu) => cpu?.load_generator_us),
  ];
};

/** A warning when other work loaded the machine during the run: more runnable processes than it has CPUs. */
const busyMachineNote = (result: HttpBenchResult): string[] => {
  const highest = Math.max(...result.load_average.before, ...result.load_average.after);
  return result.cpus !== undefined && highest > result.cpus
    ? [
        `**A shared, busy machine**: its load average reached ${highest} on ${result.cpus} CPUs during this run, so ` +
          'rates swing by up to a half between phases and the ratios below are rough; a run on a quiet machine replaces them.',
        '',
      ]
    : [];
};

/**
 * The part of `docs/PERFORMANCE.md` an http sweep measures (between its two markers): the sweep table and the CPU
 * per request with shared commits on and off, from `result` alone.
 *
 * @example
 * performanceSection(JSON.parse(await readFile('tools/bench/results/http.json', 'utf8')) as HttpBenchResult);
 */
export const performanceSection = (result: HttpBenchResult): string =>
  [
    start,
    '',
    `Measured ${result.measured_at.slice(0, 16).replace('T', ' ')} UTC, ${result.rounds} rounds of ${result.seconds_per_phase} s ` +
      `phases, load average ${result.load_average.before.join(' / ')} before and ${result.load_average.after.join(' / ')} after; ` +
      `keyed p50 ÷ the article's at 1 connection: ${result.p50_vs_article?.keyed ?? '–'} with shared commits, ` +
      `${result.p50_vs_article?.keyed_unshared ?? '–'} without.`,
    '',
    ...busyMachineNote(result),
    ...sweepTable(result),
    '',
    ...costTable(result),
    '',
    end,
  ].join('\n');

/** Rewrites the sweep's part of the document at `path` (between its markers) from `result`. */
export const refreshPerformanceDoc = async (result: HttpBenchResult, path: string): Promise<void> => {
  const document = await readFile(path, 'utf8');
  const from = document.indexOf(start);
  const to = document.indexOf(end);
  if (from === -1 || to < from) throw new Error(`${path} has no http sweep markers`);
  await writeFile(
    path,
    document.slice(0, from) + performanceSection(result) + document.slice(to + end.length),
  );
};
