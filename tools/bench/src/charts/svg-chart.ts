import type { ChartData, ChartGroup } from './chart-data.js';

const width = 760;
const labelWidth = 120;
const barArea = 440;
const rowHeight = 26;
const palette = ['#0b6e4f', '#57606a', '#0550ae', '#b35900', '#8250df'];

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A number as the chart prints it: thousands grouped, two decimals below ten. */
export const formatValue = (value: number): string =>
  value >= 10 ? Math.round(value).toLocaleString('en-US') : value.toFixed(2);

const metricName = (metric: string) =>
  metric === 'rps'
    ? 'requests per second'
    : /^p\d+_ms$/.test(metric)
      ? `${metric.slice(0, -3)} latency in ms`
      : metric.replace(/_/g, ' ').replace(/\bper s$/, 'per second');

const metricTitle = (group: ChartGroup) =>
  `${metricName(group.metric)} (${group.higherIsBetter ? 'higher' : 'lower'} is better)`;

const groupSvg = (group: ChartGroup, top: number): { svg: string; height: number } => {
  const scaleMax = Math.max(...group.bars.map((bar) => Math.max(bar.value, bar.spread?.max ?? 0)), 1);
  const x = (value: number) => labelWidth + (value / scaleMax) * barArea;
  const [first] = group.bars;
  const parts = [`<text x="12" y="${top + 14}" class="metric">${escape(metricTitle(group))}</text>`];
  group.bars.forEach((bar, index) => {
    const y = top + 24 + index * rowHeight;
    const colour = palette[index % palette.length] ?? '#57606a';
    const ratio =
      index > 0 && first && first.value > 0
        ? ` ×${(bar.value / first.value).toFixed(2)} vs ${first.side}`
        : '';
    parts.push(
      `<text x="${labelWidth - 8}" y="${y + 14}" text-anchor="end" class="side">${escape(bar.side)}</text>`,
      `<rect x="${labelWidth}" y="${y + 2}" width="${Math.max(1, x(bar.value) - labelWidth).toFixed(1)}" height="${rowHeight - 8}" rx="3" fill="${colour}"/>`,
    );
    if (bar.spread) {
      const mid = y + 2 + (rowHeight - 8) / 2;
      parts.push(
        `<line x1="${x(bar.spread.min).toFixed(1)}" x2="${x(bar.spread.max).toFixed(1)}" y1="${mid}" y2="${mid}" class="spread"/>`,
        `<line x1="${x(bar.spread.min).toFixed(1)}" x2="${x(bar.spread.min).toFixed(1)}" y1="${mid - 6}" y2="${mid + 6}" class="spread"/>`,
        `<line x1="${x(bar.spread.max).toFixed(1)}" x2="${x(bar.spread.max).toFixed(1)}" y1="${mid - 6}" y2="${mid + 6}" class="spread"/>`,
      );
    }
    const end = Math.max(x(bar.value), bar.spread ? x(bar.spread.max) : 0);
    parts.push(
      `<text x="${(end + 6).toFixed(1)}" y="${y + 14}" class="value">${formatValue(bar.value)}<tspan class="ratio">${escape(ratio)}</tspan></text>`,
    );
  });
  return { svg: parts.join('\n  '), height: 24 + group.bars.length * rowHeight + 14 };
};

/**
 * Draws a benchmark's results as an SVG bar chart: one block per metric, the compared sides as bars with their
 * ratio to the first side, and whiskers from the slowest to the fastest round when the results kept rounds.
 *
 * @example
 * await writeFile('http.svg', renderChartSvg(toChartData('http', results)));
 */
export const renderChartSvg = (chart: ChartData): string => {
  const blocks: string[] = [];
  let top = 52;
  for (const group of chart.groups) {
    const block = groupSvg(group, top);
    blocks.push(block.svg);
    top += block.height;
  }
  const notes = [
    chart.ratios.map((ratio) => `${ratio.name.replace(/_/g, ' ')} ${formatValue(ratio.value)}`).join(' · '),
    [
      chart.rounds === undefined ? '' : `${String(chart.rounds)} rounds`,
      chart.groups.some((group) => group.bars.some((bar) => bar.spread))
        ? 'whiskers: slowest to fastest round'
        : 'per-round values not kept in these results',
    ]
      .filter(Boolean)
      .join(' · '),
  ].filter(Boolean);
  notes.forEach((note, index) =>
    blocks.push(`<text x="12" y="${top + 8 + index * 16}" class="note">${escape(note)}</text>`),
  );
  const height = top + 16 + notes.length * 16;
  const subtitle = chart.measuredAt ? `measured ${chart.measuredAt.slice(0, 16).replace('T', ' ')} UTC` : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif">
  <style>
    .title { font-size: 16px; font-weight: 700; fill: #1f2328; }
    .subtitle, .note { font-size: 11px; fill: #656d76; }
    .metric { font-size: 12px; font-weight: 600; fill: #1f2328; }
    .side { font-size: 12px; fill: #1f2328; }
    .value { font-size: 12px; fill: #1f2328; }
    .ratio { fill: #656d76; }
    .spread { stroke: #1f2328; stroke-width: 1.5; }
  </style>
  <rect width="100%" height="100%" fill="#ffffff"/>
  <text x="12" y="24" class="title">${escape(`npm run bench -- ${chart.name}`)}</text>
  <text x="12" y="40" class="subtitle">${escape(subtitle)}</text>
  ${blocks.join('\n  ')}
</svg>
`;
};
