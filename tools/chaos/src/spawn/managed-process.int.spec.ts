import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { killRunningChildren, startManagedProcess } from './managed-process.js';
import type { ManagedProcessOptions } from './managed-process.js';

/** A child that runs until it is killed and prints nothing. */
const idleChild: Pick<ManagedProcessOptions, 'command' | 'args' | 'env'> = {
  command: process.execPath,
  args: ['-e', 'setInterval(() => undefined, 1_000)'],
  env: {},
};

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('a supervised child that does not become ready', () => {
  it('fails the start and is not left running', async () => {
    const children: ChildProcess[] = [];
    const start = startManagedProcess({
      ...idleChild,
      name: 'never-ready',
      restartDelayMs: 10,
      ready: async (child) => {
        children.push(child);
        throw new Error('not ready in time');
      },
    });

    await expect(start).rejects.toBeInstanceOf(Error);
    const [child] = children;
    if (child?.exitCode === null && child.signalCode === null) await once(child, 'exit');
    expect(child?.signalCode).toBe('SIGKILL');
  });

  it('fails kill9 when the replacement never becomes ready, and stop ends that replacement', async () => {
    let launches = 0;
    const supervised = await startManagedProcess({
      ...idleChild,
      name: 'ready-once',
      restartDelayMs: 10,
      ready: async () => {
        launches += 1;
        if (launches > 1) throw new Error('not ready in time');
      },
    });

    await expect(supervised.kill9()).rejects.toBeInstanceOf(Error);
    const replacement = supervised.pid();
    expect(replacement).toBeDefined();
    expect(isRunning(replacement as number)).toBe(true);
    expect(supervised.isReady()).toBe(false);

    await supervised.stop();
    expect(isRunning(replacement as number)).toBe(false);
  });

  it('resolves kill9 once the replacement is ready', async () => {
    const supervised = await startManagedProcess({
      ...idleChild,
      name: 'always-ready',
      restartDelayMs: 10,
      ready: async () => undefined,
    });
    const first = supervised.pid();

    await supervised.kill9();

    expect(supervised.pid()).not.toBe(first);
    expect(supervised.isReady()).toBe(true);
    await supervised.stop();
  });

  it('gets SIGKILL from killRunningChildren, as on the way out of a process that exits before stopping it', async () => {
    const supervised = await startManagedProcess({
      ...idleChild,
      name: 'left-running',
      restartDelayMs: 60_000,
      ready: async () => undefined,
    });
    const pid = supervised.pid() as number;

    killRunningChildren();

    await expect.poll(() => isRunning(pid)).toBe(false);
    await supervised.stop();
  });
});
