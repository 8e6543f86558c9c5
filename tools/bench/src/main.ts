/**
 * Benchmark entry: `npm run bench -- <name> [args…]`. Each benchmark lives in its own module and is loaded only
 * when asked for; add yours to the table.
 */
const benchmarks: Record<string, () => Promise<{ run(args: readonly string[]): Promise<void> }>> = {
  'event-store': () => import('./event-store.bench.js'),
  engine: () => import('./engine.bench.js'),
  projections: () => import('./projections.bench.js'),
  http: () => import('./http.bench.js'),
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
}
