import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HttpBenchResult, SweepPoint } from './http-bench-result.js';
import type { PhaseCpu } from './phase-cpu.js';
import { performanceSection, refreshPerformanceDoc } from './performance-doc.js';

const side = (rps: number, p50_ms: number) => ({ rps, p50_ms, p99_ms: p50_ms * 4, cpu_us: 1000 });
const point = (connections: number, keyedRps: number): SweepPoint => ({
  connections,
  sides: {
    plain: side(900, 2),
    keyed: side(keyedRps, 1.234),
    keyed_unshared: side(800, 1.5),
    keyed_projector_off: side(1100, 1.1),
    article: side(1000, 1),
    replay: side(9000, 0.1),
    article_replay: side(1000, 1),
  },
  keyed_vs_article: keyedRps / 1000,
  keyed_unshared_vs_article: 0.8,
  keyed_projector_off_vs_article: 1.1,
  replay_vs_article_replay: 9,
  keyed_p50_vs_article: 1.23,
  keyed_unshared_p50_vs_article: 1.5,
});
const cpu = (busy: number): PhaseCpu => ({
  machine_busy_us: busy,
  machine_idle_us: 100,
  server_us: 400,
  postgres_us: { 'once-api': 300, 'once-projector': 100 },
  load_generator_us: 80,
  other_us: 20,
});
const result = {
  sweep: [point(1, 1100), point(64, 1300)],
  p50_vs_article: { keyed: 1.23, keyed_unshared: 1.5 },
  cpu_per_request: { keyed: cpu(1400), keyed_unshared: cpu(1600), article: cpu(1100) },
  rounds: 3,
  seconds_per_phase: 5,
  load_average: { before: [0.5, 0.4, 0.3], after: [2, 1, 0.5] },
  measured_at: '2026-12-04T09:30:00.000Z',
} as Partial<HttpBenchResult> as HttpBenchResult;

describe('the sweep in docs/PERFORMANCE.md', () => {
  it('tables each number of connections and the cost per request with shared commits on and off', () => {
    const section = performanceSection(result);
    expect(section).toContain(
      '| 64 | 1.3 | 0.8 | 1.1 | 9 | 1.23 | 1300 | 1000 | 1.23 / 4.94 | 1.50 / 6.00 | 1.00 / 4.00 |',
    );
    expect(section).toContain('| the whole machine, busy | 1400 | 1600 | – | 1100 |');
    expect(section).toContain('| PostgreSQL, all its backends of the side | 400 | 400 | – | 400 |');
    expect(section).toContain('1.23 with shared commits, 1.5 without');
    expect(section).not.toContain('busy machine');
  });

  it('says when the machine was busier than its CPUs during the run', () => {
    expect(performanceSection({ ...result, cpus: 2 })).not.toContain('busy machine');
    expect(performanceSection({ ...result, cpus: 1 })).toContain('load average reached 2 on 1 CPUs');
  });

  it('rewrites only what lies between its markers', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'performance-doc-')), 'PERFORMANCE.md');
    const markers = performanceSection({ ...result, sweep: [] });
    await writeFile(path, `# before\n\n${markers}\n\n# after\n`);
    await refreshPerformanceDoc(result, path);
    const document = await readFile(path, 'utf8');
    expect(document.startsWith('# before\n\n')).toBe(true);
    expect(document.endsWith('\n\n# after\n')).toBe(true);
    expect(document).toContain('| 1 | 1.1 |');
  });

  it('refuses a document without the markers', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'performance-doc-')), 'PERFORMANCE.md');
    await writeFile(path, '# nothing here\n');
    await expect(refreshPerformanceDoc(result, path)).rejects.toThrow(/no http sweep markers/);
  });
});
