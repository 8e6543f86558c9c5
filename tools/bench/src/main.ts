/**
 * Benchmark entry: `npm run bench -- <name> [args…]`. Each benchmark lives in its own module and is loaded only
 * when asked for; add yours to the table.
 */
import { renderBenchmarkResults } from './charts/index.js';

const benchmarks: Record<string, () => Promise<{ run(args: readonly string[]): Promise<void> }>> = {
  'event-store': () => import('./event-store.bench.js'),
  engine: () => import('./engine.bench.js'),
  projections: () => import('./projections.bench.js'),
  http: () => import('./http/http.bench.js'),
  'round-trips': () => import('./round-trips.bench.js'),
  outbox: () => import('./outbox.bench.js'),
  soak: () => import('./soak.bench.js'),
  replicas: () => import('./replicas.bench.js'),
  'write-cost': () => import('./write-cost/write-cost.bench.js'),
};

const [name, ...args] = process.argv.slice(2);
const load = name === undefined ? undefined : benchmarks[name];
if (load === undefined) {
  console.error(`usage: npm run bench -- <${Object.keys(benchmarks).join('|')}> [args]`);
  process.exitCode = 1;
} else {
  const benchmark = await load();
  await benchmark.run(args);
  // Charts and docs/BENCHMARKS.md follow the results files.
  await renderBenchmarkResults();
}
