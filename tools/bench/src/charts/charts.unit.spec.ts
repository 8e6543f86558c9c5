import { describe, expect, it } from 'vitest';
import { benchmarksDocument } from './benchmarks-doc.js';
import { toChartData } from './chart-data.js';
import { renderChartSvg } from './svg-chart.js';

const results = {
  ours_appends_per_s: 3000,
  emmett_appends_per_s: 1500,
  ours_p99_ms: 12,
  ours_vs_emmett: 2,
  setup: { streams: 10 },
  rounds: [
    { round: 1, ours_appends_per_s: 2800, emmett_appends_per_s: 1400 },
    { round: 2, ours_appends_per_s: 3100, emmett_appends_per_s: 1600 },
  ],
  measured_at: '2026-11-30T03:11:43.051Z',
};

describe('benchmark charts', () => {
  it('groups sides by metric, keeps the ratios and each side’s spread over rounds', () => {
    const chart = toChartData('event-store', results);
    expect(chart.groups).toEqual([
      {
        metric: 'appends_per_s',
        higherIsBetter: true,
        bars: [
          { side: 'ours', value: 3000, spread: { min: 2800, max: 3100 } },
          { side: 'emmett', value: 1500, spread: { min: 1400, max: 1600 } },
        ],
      },
      { metric: 'p99_ms', higherIsBetter: false, bars: [{ side: 'ours', value: 12 }] },
    ]);
    expect(chart.ratios).toEqual([{ name: 'ours_vs_emmett', value: 2 }]);
    expect(chart.rounds).toBe(2);
  });

  it('keeps verdicts named …_ratio beside the a_vs_b ratios', () => {
    const chart = toChartData('soak', { requests: 10, storage_growth_ratio: -0.003, p99_ratio: 1.1 });
    expect(chart.ratios).toEqual([
      { name: 'storage_growth_ratio', value: -0.003 },
      { name: 'p99_ratio', value: 1.1 },
    ]);
  });

  it('draws a sweep as each ratio against the number of connections', () => {
    const chart = toChartData('http', {
      keyed_rps: 900,
      sweep: [
        { connections: 1, keyed_vs_article: 0.8, sides: { keyed: { rps: 100 } } },
        { connections: 64, keyed_vs_article: 1.4, sides: { keyed: { rps: 1200 } } },
      ],
    });
    expect(chart.groups.at(-1)).toEqual({
      metric: 'keyed_vs_article by connections',
      higherIsBetter: true,
      bars: [
        { side: '1 connections', value: 0.8 },
        { side: '64 connections', value: 1.4 },
      ],
    });
    expect(renderChartSvg(chart)).toContain('keyed vs article by connections');
  });

  it('draws a sweep’s latency ratios as better lower', () => {
    const chart = toChartData('http', {
      sweep: [{ connections: 1, keyed_p50_vs_article: 1.1, keyed_vs_article: 1.2 }],
    });
    expect(chart.groups.map((group) => [group.metric, group.higherIsBetter])).toEqual([
      ['keyed_p50_vs_article by connections', false],
      ['keyed_vs_article by connections', true],
    ]);
  });

  it('names a side by everything before its throughput or latency', () => {
    const chart = toChartData('http', {
      keyed_rps: 900,
      keyed_unshared_rps: 700,
      keyed_unshared_p50_ms: 1.25,
      ours_appends_per_s: 10,
    });
    expect(chart.groups).toEqual([
      {
        metric: 'rps',
        higherIsBetter: true,
        bars: [
          { side: 'keyed', value: 900 },
          { side: 'keyed_unshared', value: 700 },
        ],
      },
      { metric: 'p50_ms', higherIsBetter: false, bars: [{ side: 'keyed_unshared', value: 1.25 }] },
      { metric: 'appends_per_s', higherIsBetter: true, bars: [{ side: 'ours', value: 10 }] },
    ]);
  });

  it('draws the bars with their values and the ratio to the first side', () => {
    const svg = renderChartSvg(toChartData('event-store', results));
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toContain('3,000');
    expect(svg).toContain('×0.50 vs ours');
    expect(svg).toContain('whiskers: slowest to fastest round');
  });

  it('tables every benchmark with links to its chart and results', () => {
    const document = benchmarksDocument([
      {
        chart: toChartData('http', { keyed_rps: 600 }),
        resultsLink: '../r/http.json',
        chartLink: '../r/http.svg',
      },
    ]);
    expect(document).toContain(
      '| `http` | – | rps: keyed 600 | – | [chart](../r/http.svg) · [results](../r/http.json) |',
    );
    expect(document).toContain('![http benchmark](../r/http.svg)');
  });
});
