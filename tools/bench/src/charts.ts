/**
 * `npm run bench:charts`: redraws every chart and `docs/BENCHMARKS.md` from the committed results, without running a
 * benchmark.
 */
import { relative } from 'node:path';
import { renderBenchmarkResults } from './charts/index.js';

for (const chart of await renderBenchmarkResults()) console.log(`wrote ${relative(process.cwd(), chart)}`);
console.log('wrote docs/BENCHMARKS.md');
