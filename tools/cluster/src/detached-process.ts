import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface DetachedOptions {
  readonly logFile: string;
  readonly cwd: string;
  readonly user?: { readonly uid: number; readonly gid: number };
  readonly env?: NodeJS.ProcessEnv;
}

/** Starts a process that outlives this one (its output appended to `logFile`) and returns its pid. */
export const startDetached = (command: string, args: readonly string[], options: DetachedOptions): number => {
  const log = openSync(options.logFile, 'a');
  try {
    const child = spawn(command, args, {
      cwd: options.cwd,
      detached: true,
      stdio: ['ignore', log, log],
      env: options.env ?? process.env,
      ...(options.user ?? {}),
    });
    if (child.pid === undefined) throw new Error(`${command} could not be started`);
    child.unref();
    return child.pid;
  } finally {
    closeSync(log);
  }
};

export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Waits until `pid` has gone; false when `timeoutMs` passed first. */
export const waitForExit = async (pid: number, timeoutMs: number): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
};

/** SIGTERM, then SIGKILL when the process has not left after `graceMs`. */
export const stopProcess = async (pid: number, graceMs: number): Promise<void> => {
  if (!isAlive(pid)) return;
  process.kill(pid, 'SIGTERM');
  if (await waitForExit(pid, graceMs)) return;
  process.kill(pid, 'SIGKILL');
  await waitForExit(pid, 5_000);
};

/** The postmaster's pid from a data folder's `postmaster.pid`, undefined when PostgreSQL is not running there. */
export const postmasterPid = async (dataDirectory: string): Promise<number | undefined> => {
  try {
    const pid = Number((await readFile(join(dataDirectory, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
};
