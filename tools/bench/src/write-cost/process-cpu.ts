import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Clock ticks per second in /proc/<pid>/stat (USER_HZ; 100 on Linux for every common architecture). */
const TICKS_PER_SECOND = 100;

/** A process's user + system CPU so far, in microseconds; undefined once it has exited. */
export const processCpuMicros = async (pid: number): Promise<number | undefined> => {
  const stat = await readFile(`/proc/${String(pid)}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return undefined;
  // Fields after the command name (which may hold spaces) in parentheses: state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / TICKS_PER_SECOND;
};

/** The CPU of several processes by pid, read at one moment. */
export const cpuSnapshot = async (pids: readonly number[]): Promise<Map<number, number>> => {
  const entries = await Promise.all(pids.map(async (pid) => [pid, await processCpuMicros(pid)] as const));
  return new Map(entries.filter((entry): entry is readonly [number, number] => entry[1] !== undefined));
};

/**
 * CPU spent between two snapshots by the processes of `after` (a process born in between counts from zero; one that
 * exited in between is lost, which is why a measurement window should keep its processes).
 */
export const cpuBetween = (
  before: ReadonlyMap<number, number>,
  after: ReadonlyMap<number, number>,
  pids: Iterable<number> = after.keys(),
): number => {
  let total = 0;
  // A pid the OS gave to a new process in between reads lower than before: that process counts from zero.
  for (const pid of pids) {
    const spent = (after.get(pid) ?? 0) - (before.get(pid) ?? 0);
    total += spent >= 0 ? spent : (after.get(pid) ?? 0);
  }
  return total;
};

/** Every process whose parent is `parentPid` (the PostgreSQL server's backends and background workers). */
export const childProcesses = async (parentPid: number): Promise<number[]> => {
  const children: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(join('/proc', entry, 'stat'), 'utf8').catch(() => undefined);
    if (stat === undefined) continue;
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parent === parentPid) children.push(Number(entry));
  }
  return children;
};

/** The PostgreSQL server's own pid, from `postmaster.pid` in its data folder. */
export const postmasterPid = async (dataDirectory: string): Promise<number> =>
  Number((await readFile(join(dataDirectory, 'postmaster.pid'), 'utf8')).split('\n')[0]);
