import type { ChartData } from './chart-data.js';
import { formatValue } from './svg-chart.js';

/** What the table needs of one benchmark: its chart data and where its files are, relative to the document. */
export interface DocumentedBenchmark {
  readonly chart: ChartData;
  readonly resultsLink: string;
  readonly chartLink: string;
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

const headline = (chart: ChartData) =>
  chart.groups
    .filter((group) => group.higherIsBetter)
    .map(
      (group) =>
        `${group.metric}: ${group.bars.map((bar) => `${bar.side} ${formatValue(bar.value)}`).join(', ')}`,
    )
    .join('<br>');

/**
 * `docs/BENCHMARKS.md`: one row per committed results file with its throughputs, its ratios and links to its chart
 * and its JSON. Generated; the numbers are the files'.
 *
 * @example
 * await writeFile('docs/BENCHMARKS.md', benchmarksDocument(benchmarks));
 */
export const benchmarksDocument = (benchmarks: readonly DocumentedBenchmark[]): string => {
  const rows = benchmarks.map(({ chart, resultsLink, chartLink }) =>
    [
      `\`${chart.name}\``,
      chart.measuredAt ? chart.measuredAt.slice(0, 10) : '–',
      cell(headline(chart) || '–'),
      cell(chart.ratios.map((ratio) => `${ratio.name} ${formatValue(ratio.value)}`).join('<br>') || '–'),
      `[chart](${chartLink}) · [results](${resultsLink})`,
    ].join(' | '),
  );
  return [
    '# Benchmarks',
    '',
    'Generated from the committed results in `tools/bench/results/` by `npm run bench:charts` (and after every',
    '`npm run bench -- <name>`); do not edit by hand. Each benchmark compares sides measured in the same run on the',
    'same machine, so read the ratios, not the absolute numbers.',
    '',
    '| benchmark | measured | throughput | ratios | files |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((row) => `| ${row} |`),
    '',
    ...benchmarks.flatMap(({ chart, chartLink }) => [
      `## ${chart.name}`,
      '',
      `![${chart.name} benchmark](${chartLink})`,
      '',
    ]),
  ].join('\n');
};
