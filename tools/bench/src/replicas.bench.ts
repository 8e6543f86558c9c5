import { randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { spawnSystem, startBalancer } from '@once/chaos';
import type { SpawnedSystem } from '@once/chaos';
import {
  processCpuSeconds,
  processTreeCpuSeconds,
  processTreeRunQueueWaitSeconds,
  runQueueWaitSeconds,
} from './process-cpu.js';
import { median } from './median.js';

/** One replica count's measurement (medians over the rounds). */
export interface ReplicasPoint {
  readonly replicas: number;
  readonly keyed_rps: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
  readonly non_2xx: number;
  /** Cores busy, averaged over the phase: each api replica, all of them, PostgreSQL (postmaster and backends). */
  readonly api_cores_each: readonly number[];
  readonly api_cores: number;
  readonly postgres_cores: number;
  /**
   * Seconds per second the processes were runnable but waited for a CPU (run-queue wait, /proc/<pid>/schedstat):
   * above their own CPU use, the machine's cores are the bottleneck, not the process.
   */
  readonly api_run_queue_wait: number;
  readonly postgres_run_queue_wait: number;
  /** The load generator and balancer (this process). */
  readonly loadgen_cores: number;
  /** PostgreSQL server CPU-ish time per request: statement execution time from pg_stat_statements / requests. */
  readonly postgres_exec_ms_per_request: number;
  /** WAL written and transactions ended (reads included: every statement outside a transaction is one) per request, from pg_stat_wal and pg_stat_database: the per-write cost. */
  readonly wal_bytes_per_request: number;
  readonly transactions_per_request: number;
  /** Client backends sampled every 100 ms: what they were doing (`active`, `idle`, `idle in transaction`) ... */
  readonly backend_states: Readonly<Record<string, number>>;
  /** ... and what the active ones waited on (`CPU` when nothing: running or runnable). */
  readonly wait_events: Readonly<Record<string, number>>;
  /** Lock requests not granted, summed over the samples. */
  readonly lock_waits: number;
  /** The statements with the most execution time. */
  readonly top_statements: readonly {
    readonly query: string;
    readonly calls: number;
    readonly mean_ms: number;
    readonly share: number;
  }[];
}

export interface ReplicasBenchResult {
  readonly points: readonly ReplicasPoint[];
  readonly speedup_2_vs_1: number;
  readonly speedup_4_vs_1: number;
  readonly connections: number;
  readonly seconds_per_phase: number;
  readonly rounds: number;
  readonly cores: number;
  readonly load_average_before: readonly number[];
  readonly load_average_after: readonly number[];
  readonly postgres: string;
  readonly measured_at: string;
}

const REPLICA_COUNTS = [1, 2, 4];
const CONNECTIONS = 32;
const SECONDS_PER_PHASE = 8;
const ROUNDS = 2;
const INVOICES = 512;

const resultsFile = join(dirname(fileURLToPath(import.meta.url)), '..', 'results', 'replicas.json');

const round = (value: number, digits = 2): number => Math.round(value * 10 ** digits) / 10 ** digits;

const post = async (url: string, apiKey: string, body: unknown): Promise<{ id: string }> => {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
    },
    body: JSON.stringify(body),
  });
  if (response.status !== 201)
    throw new Error(`${url} answered ${String(response.status)}: ${await response.text()}`);
  return (await response.json()) as { id: string };
};

const tally = (counts: Record<string, number>, key: string) => {
  counts[key] = (counts[key] ?? 0) + 1;
};

/** Samples pg_stat_activity and pg_locks every 100 ms until stopped. */
const sampleActivity = (pool: pg.Pool) => {
  const states: Record<string, number> = {};
  const waits: Record<string, number> = {};
  let lockWaits = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await pool.query<{ state: string | null; wait: string | null }>(
        `SELECT state, wait_event_type || ':' || wait_event AS wait FROM pg_stat_activity
          WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      );
      for (const row of rows) {
        tally(states, row.state ?? 'unknown');
        if (row.state === 'active') tally(waits, row.wait ?? 'CPU');
      }
      const locks = await pool.query<{ waiting: string }>(
        'SELECT count(*) AS waiting FROM pg_locks WHERE NOT granted',
      );
      lockWaits += Number(locks.rows[0]?.waiting ?? 0);
      await sleep(100);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { states, waits, lockWaits };
    },
  };
};

const topStatements = async (pool: pg.Pool, requests: number) => {
  const { rows } = await pool.query<{ query: string; calls: string; total: number; mean: number }>(
    `SELECT query, calls, total_exec_time AS total, mean_exec_time AS mean FROM pg_stat_statements
      WHERE query NOT LIKE '%pg_stat_%' ORDER BY total_exec_time DESC`,
  );
  const total = rows.reduce((sum, row) => sum + row.total, 0);
  return {
    execMsPerRequest: requests === 0 ? 0 : total / requests,
    top: rows.slice(0, 5).map((row) => ({
      query: row.query.replace(/\s+/g, ' ').slice(0, 160),
      calls: Number(row.calls),
      mean_ms: round(row.mean, 3),
      share: round(row.total / total),
    })),
  };
};

const walAndCommits = async (pool: pg.Pool): Promise<{ wal: number; commits: number }> => {
  const { rows } = await pool.query<{ wal: string; commits: string }>(
    `SELECT (SELECT wal_bytes FROM pg_stat_wal) AS wal,
            (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()) AS commits`,
  );
  return { wal: Number(rows[0]?.wal ?? 0), commits: Number(rows[0]?.commits ?? 0) };
};

/** One phase: keyed cash payments through a balancer over the first `replicas` api processes. */
const phase = async (
  system: SpawnedSystem,
  pool: pg.Pool,
  replicas: number,
  invoiceIds: readonly string[],
) => {
  const balancer = await startBalancer(0, system.apiPorts.slice(0, replicas));
  const apiPids = system.apis.slice(0, replicas).map((api) => api.pid() ?? 0);
  const postmaster = await system.postgres.postmasterPid();
  await pool.query('SELECT pg_stat_statements_reset()');
  const walBefore = await walAndCommits(pool);
  const cpuBefore = {
    apis: await Promise.all(apiPids.map(processCpuSeconds)),
    postgres: await processTreeCpuSeconds(postmaster),
    apiWait: (await Promise.all(apiPids.map(runQueueWaitSeconds))).reduce((sum, wait) => sum + wait, 0),
    postgresWait: await processTreeRunQueueWaitSeconds(postmaster),
    self: process.cpuUsage(),
  };
  const sampler = sampleActivity(pool);
  const started = process.hrtime.bigint();
  const result = await autocannon({
    url: balancer.url,
    connections: CONNECTIONS,
    duration: SECONDS_PER_PHASE,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => ({
          ...request,
          path: `/invoices/${invoiceIds[Math.floor(Math.random() * invoiceIds.length)] as string}/payments`,
          headers: {
            authorization: `Bearer ${system.credentials.apiKey}`,
            'content-type': 'application/json',
            'idempotency-key': randomUUID(),
          },
          body: JSON.stringify({ method: 'cash', amount: 1, currency: 'EUR' }),
        }),
      },
    ],
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const activity = await sampler.stop();
  const apiCpu = await Promise.all(apiPids.map(processCpuSeconds));
  const postgresCpu = await processTreeCpuSeconds(postmaster);
  const apiWait = (await Promise.all(apiPids.map(runQueueWaitSeconds))).reduce((sum, wait) => sum + wait, 0);
  const postgresWait = await processTreeRunQueueWaitSeconds(postmaster);
  const self = process.cpuUsage(cpuBefore.self);
  const statements = await topStatements(pool, result.requests.total);
  const walAfter = await walAndCommits(pool);
  const perRequest = (value: number) => (result.requests.total === 0 ? 0 : value / result.requests.total);
  await balancer.close();
  const apiCores = apiCpu.map((cpu, index) => round((cpu - (cpuBefore.apis[index] ?? 0)) / seconds));
  return {
    replicas,
    keyed_rps: round(result.requests.average, 0),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    non_2xx: result.non2xx,
    api_cores_each: apiCores,
    api_cores: round(apiCores.reduce((sum, cores) => sum + cores, 0)),
    postgres_cores: round((postgresCpu - cpuBefore.postgres) / seconds),
    api_run_queue_wait: round((apiWait - cpuBefore.apiWait) / seconds),
    postgres_run_queue_wait: round((postgresWait - cpuBefore.postgresWait) / seconds),
    loadgen_cores: round((self.user + self.system) / 1e6 / seconds),
    postgres_exec_ms_per_request: round(statements.execMsPerRequest, 3),
    wal_bytes_per_request: round(perRequest(walAfter.wal - walBefore.wal), 0),
    transactions_per_request: round(perRequest(walAfter.commits - walBefore.commits)),
    backend_states: activity.states,
    wait_events: activity.waits,
    lock_waits: activity.lockWaits,
    top_statements: statements.top,
  } satisfies ReplicasPoint;
};

const mergeCounts = (all: readonly Readonly<Record<string, number>>[]): Record<string, number> => {
  const merged: Record<string, number> = {};
  for (const counts of all)
    for (const [key, value] of Object.entries(counts)) merged[key] = (merged[key] ?? 0) + value;
  return Object.fromEntries(Object.entries(merged).sort(([, a], [, b]) => b - a));
};

/** Per replica count, the median round by requests/s, with the activity samples of every round. */
const summarise = (replicas: number, phases: readonly ReplicasPoint[]): ReplicasPoint => {
  const sorted = [...phases].sort((a, b) => a.keyed_rps - b.keyed_rps);
  const middle = sorted[Math.floor(sorted.length / 2)] as ReplicasPoint;
  return {
    ...middle,
    replicas,
    keyed_rps: median(phases.map((point) => point.keyed_rps)),
    backend_states: mergeCounts(phases.map((point) => point.backend_states)),
    wait_events: mergeCounts(phases.map((point) => point.wait_events)),
    lock_waits: phases.reduce((sum, point) => sum + point.lock_waits, 0),
  };
};

/**
 * Keyed payments per second through 1, 2 and 4 api replicas on one PostgreSQL (embedded, fsync on), behind the
 * chaos tool's round-robin balancer, with where the time goes: each process's CPU from /proc, PostgreSQL's
 * statement times (pg_stat_statements), backend states and wait events (pg_stat_activity) and lock waits (pg_locks).
 */
export const runReplicasBench = async (
  log: (line: string) => void = () => undefined,
): Promise<ReplicasBenchResult> => {
  const loadBefore = loadavg().map((load) => round(load));
  const scratch = await mkdtemp(join(tmpdir(), 'once-bench-replicas-'));
  await chmod(scratch, 0o755);
  const system = await spawnSystem({
    replicas: Math.max(...REPLICA_COUNTS),
    directory: scratch,
    projectors: 1,
    poolSize: 20,
    postgresSettings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'top' },
  });
  const pool = new pg.Pool({ connectionString: system.postgres.connectionString, max: 2 });
  try {
    await pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const invoiceIds: string[] = [];
    while (invoiceIds.length < INVOICES) {
      const batch = await Promise.all(
        Array.from({ length: 16 }, () =>
          post(`${system.url}/invoices`, system.credentials.apiKey, { currency: 'EUR', total: 1e12 }),
        ),
      );
      invoiceIds.push(...batch.map((invoice) => invoice.id));
    }
    await phase(system, pool, Math.max(...REPLICA_COUNTS), invoiceIds);
    const phases = new Map<number, ReplicasPoint[]>(REPLICA_COUNTS.map((count) => [count, []]));
    for (let index = 0; index < ROUNDS; index += 1) {
      for (const replicas of index % 2 === 0 ? REPLICA_COUNTS : [...REPLICA_COUNTS].reverse()) {
        const point = await phase(system, pool, replicas, invoiceIds);
        phases.get(replicas)?.push(point);
        log(
          `round ${String(index + 1)}: ${String(replicas)} replica(s) ${String(point.keyed_rps)}/s p99 ${String(point.p99_ms)} ms, api ${String(point.api_cores)} cores, postgres ${String(point.postgres_cores)} cores`,
        );
      }
    }
    const points = REPLICA_COUNTS.map((count) => summarise(count, phases.get(count) ?? []));
    const rps = (count: number) => points.find((point) => point.replicas === count)?.keyed_rps ?? 0;
    const { rows } = await pool.query<{ server_version: string }>('SHOW server_version');
    return {
      points,
      speedup_2_vs_1: round(rps(2) / rps(1)),
      speedup_4_vs_1: round(rps(4) / rps(1)),
      connections: CONNECTIONS,
      seconds_per_phase: SECONDS_PER_PHASE,
      rounds: ROUNDS,
      cores: cpus().length,
      load_average_before: loadBefore,
      load_average_after: loadavg().map((load) => round(load)),
      postgres: `embedded ${rows[0]?.server_version ?? '?'}, fsync on`,
      measured_at: new Date().toISOString(),
    };
  } finally {
    await pool.end();
    await system.stop();
    await rm(scratch, { recursive: true, force: true });
  }
};

export const run = async (): Promise<void> => {
  const result = await runReplicasBench((line) => console.log(line));
  console.table(
    result.points.map((point) => ({
      replicas: point.replicas,
      'keyed req/s': point.keyed_rps,
      'p99 ms': point.p99_ms,
      'api cores': point.api_cores,
      'postgres cores': point.postgres_cores,
      'api waits for CPU': point.api_run_queue_wait,
      'pg waits for CPU': point.postgres_run_queue_wait,
      'pg exec ms/req': point.postgres_exec_ms_per_request,
      'top wait': Object.keys(point.wait_events)[0] ?? '-',
    })),
  );
  console.log(
    `2 vs 1: ${String(result.speedup_2_vs_1)}x, 4 vs 1: ${String(result.speedup_4_vs_1)}x; load ${result.load_average_after.join(', ')}`,
  );
  await mkdir(dirname(resultsFile), { recursive: true });
  await writeFile(resultsFile, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`written to ${resultsFile}`);
};
