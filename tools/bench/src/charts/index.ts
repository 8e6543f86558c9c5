export { benchmarksDocument } from './benchmarks-doc.js';
export type { DocumentedBenchmark } from './benchmarks-doc.js';
export { toChartData } from './chart-data.js';
export type { ChartBar, ChartData, ChartGroup } from './chart-data.js';
export { renderBenchmarkResults } from './render-results.js';
export { formatValue, renderChartSvg } from './svg-chart.js';
