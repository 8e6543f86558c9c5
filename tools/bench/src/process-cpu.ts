import { readdir, readFile } from 'node:fs/promises';

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const ticksPerSecond = 100;

interface ProcStat {
  readonly pid: number;
  readonly parent: number;
  /** utime + stime, in seconds. */
  readonly cpuSeconds: number;
}

const readStat = async (pid: number): Promise<ProcStat | undefined> => {
  const text = await readFile(`/proc/${String(pid)}/stat`, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  // The command name is in parentheses and may hold spaces: the fields after its closing parenthesis are fixed.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return {
    pid,
    parent: Number(fields[1]),
    cpuSeconds: (Number(fields[11]) + Number(fields[12])) / ticksPerSecond,
  };
};

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat; 0 when it is gone. */
export const processCpuSeconds = async (pid: number): Promise<number> =>
  (await readStat(pid))?.cpuSeconds ?? 0;

/** CPU seconds of a process and all its children (PostgreSQL: the postmaster and every backend). */
export const processTreeCpuSeconds = async (root: number): Promise<number> => {
  const entries = await readdir('/proc');
  const stats = (
    await Promise.all(entries.filter((name) => /^\d+$/.test(name)).map((name) => readStat(Number(name))))
  ).filter((stat): stat is ProcStat => stat !== undefined);
  return stats
    .filter((stat) => stat.pid === root || stat.parent === root)
    .reduce((sum, stat) => sum + stat.cpuSeconds, 0);
};

/**
 * Seconds a process's main thread has spent runnable but waiting for a CPU, from /proc/<pid>/schedstat (the
 * scheduler's run-queue wait): on a shared machine this, not the process's own CPU time, is where the time goes.
 */
export const runQueueWaitSeconds = async (pid: number): Promise<number> => {
  const text = await readFile(`/proc/${String(pid)}/schedstat`, 'utf8').catch(() => undefined);
  return text === undefined ? 0 : Number(text.split(' ')[1]) / 1e9;
};

/** Run-queue wait (seconds) of a process and all its children. */
export const processTreeRunQueueWaitSeconds = async (root: number): Promise<number> => {
  const entries = await readdir('/proc');
  const stats = (
    await Promise.all(entries.filter((name) => /^\d+$/.test(name)).map((name) => readStat(Number(name))))
  ).filter((stat): stat is ProcStat => stat !== undefined);
  const waits = await Promise.all(
    stats
      .filter((stat) => stat.pid === root || stat.parent === root)
      .map((stat) => runQueueWaitSeconds(stat.pid)),
  );
  return waits.reduce((sum, wait) => sum + wait, 0);
};
