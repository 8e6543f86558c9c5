import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { median } from '../median.js';
import { childProcesses, cpuBetween, cpuSnapshot, postmasterPid } from '../write-cost/process-cpu.js';

/** Where one phase's CPU went, in microseconds per answered request (`/proc` user + system time). */
export interface PhaseCpu {
  /** Every CPU of the machine, busy (user, nice, system, irq, softirq) and idle (idle, iowait). */
  readonly machine_busy_us: number;
  readonly machine_idle_us: number;
  /** The server process under load, all its threads (Once's api with its projector thread, or the peer). */
  readonly server_us: number;
  /** PostgreSQL backends of the side's database, by the application name its pools give. */
  readonly postgres_us: Readonly<Record<string, number>>;
  /** The benchmark process: autocannon and the embedded server's parent. */
  readonly load_generator_us: number;
  /** Everything else: other servers of the run, PostgreSQL's shared processes, the machine's other work. */
  readonly other_us: number;
}

/** Jiffies of the machine's busy and idle CPU so far (first line of /proc/stat), in microseconds. */
const machineCpu = async (): Promise<{ busy: number; idle: number }> => {
  const fields = (await readFile('/proc/stat', 'utf8'))
    .split('\n')[0]
    ?.trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const at = (index: number) => (fields?.[index] ?? 0) * 10_000;
  return { busy: at(0) + at(1) + at(2) + at(5) + at(6), idle: at(3) + at(4) };
};

/** What a phase is measured against: the server under load, its database, and the PostgreSQL server. */
export interface PhaseCpuTarget {
  readonly serverPid: number;
  readonly database: string;
  readonly serverUrl: string;
  readonly dataDirectory: string;
}

/**
 * Runs a phase and tells where the machine's CPU went while it ran, per answered request: on a machine whose cores
 * are all busy, a side's requests per second follow from these sums, not from any one process.
 *
 * @example
 * const { result, cpu } = await measurePhaseCpu(target, () => phase(keyed));
 */
export const measurePhaseCpu = async <Result extends { readonly ok: number }>(
  target: PhaseCpuTarget,
  run: () => Promise<Result>,
): Promise<{ result: Result; cpu: PhaseCpu }> => {
  const postgres = await postmasterPid(target.dataDirectory);
  const before = await cpuSnapshot([target.serverPid, process.pid, ...(await childProcesses(postgres))]);
  const machineBefore = await machineCpu();
  const result = await run();
  const machineAfter = await machineCpu();
  const after = await cpuSnapshot([target.serverPid, process.pid, ...(await childProcesses(postgres))]);
  const client = new pg.Client({ connectionString: target.serverUrl });
  await client.connect();
  const backends = await client
    .query<{ pid: number; name: string }>(
      `SELECT pid, coalesce(nullif(application_name, ''), backend_type) AS name
         FROM pg_stat_activity WHERE datname = $1`,
      [target.database],
    )
    .finally(() => client.end());
  const requests = Math.max(result.ok, 1);
  const per = (micros: number) => Math.round(micros / requests);
  const byApplication = new Map<string, number[]>();
  for (const { name, pid } of backends.rows)
    byApplication.set(name, [...(byApplication.get(name) ?? []), pid]);
  const postgresUs = Object.fromEntries(
    [...byApplication].map(([name, pids]) => [name, per(cpuBetween(before, after, pids))] as const),
  );
  const busy = per(machineAfter.busy - machineBefore.busy);
  const server = per(cpuBetween(before, after, [target.serverPid]));
  const loadGenerator = per(cpuBetween(before, after, [process.pid]));
  return {
    result,
    cpu: {
      machine_busy_us: busy,
      machine_idle_us: per(machineAfter.idle - machineBefore.idle),
      server_us: server,
      postgres_us: postgresUs,
      load_generator_us: loadGenerator,
      other_us: Math.max(busy - server - postgresTotal({ postgres_us: postgresUs }) - loadGenerator, 0),
    },
  };
};

/** A phase's PostgreSQL CPU per request, all its database's backends together. */
export const postgresTotal = (cpu: Pick<PhaseCpu, 'postgres_us'>): number =>
  Object.values(cpu.postgres_us).reduce((sum, micros) => sum + micros, 0);

/** The median of each figure over a side's phases (application names seen in any phase). */
export const medianPhaseCpu = (phases: readonly PhaseCpu[]): PhaseCpu | undefined => {
  if (phases.length === 0) return undefined;
  const of = (pick: (cpu: PhaseCpu) => number) => median(phases.map(pick));
  const names = [...new Set(phases.flatMap((cpu) => Object.keys(cpu.postgres_us)))].sort();
  return {
    machine_busy_us: of((cpu) => cpu.machine_busy_us),
    machine_idle_us: of((cpu) => cpu.machine_idle_us),
    server_us: of((cpu) => cpu.server_us),
    postgres_us: Object.fromEntries(names.map((name) => [name, of((cpu) => cpu.postgres_us[name] ?? 0)])),
    load_generator_us: of((cpu) => cpu.load_generator_us),
    other_us: of((cpu) => cpu.other_us),
  };
};
