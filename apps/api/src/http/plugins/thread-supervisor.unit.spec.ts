import { describe, expect, it } from 'vitest';
import { superviseThread } from './thread-supervisor.js';
import type { SupervisedThread } from './thread-supervisor.js';

/** A thread that runs until `die` is called (or it is stopped). */
const fakeThread = () => {
  let exit: (code: number) => void = () => undefined;
  const exited = new Promise<number>((resolve) => {
    exit = resolve;
  });
  const thread: SupervisedThread & { die(code: number): void } = {
    exited,
    die: (code) => exit(code),
    stop: async () => exit(0),
  };
  return thread;
};

const quietLog = { warn: () => undefined, error: () => undefined };

const until = async (condition: () => boolean): Promise<void> => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1));
};

describe('the thread supervisor', () => {
  it('restarts a thread that dies, with a doubling backoff, and counts each restart', async () => {
    const threads: ReturnType<typeof fakeThread>[] = [];
    const delays: number[] = [];
    let counted = 0;
    const supervisor = await superviseThread({
      start: async () => {
        const thread = fakeThread();
        threads.push(thread);
        return thread;
      },
      onRestart: () => counted++,
      log: {
        warn: (details) => delays.push((details as { delayMs: number }).delayMs),
        error: () => undefined,
      },
      baseDelayMs: 5,
      maxDelayMs: 40,
    });
    expect(supervisor.alive()).toBe(true);

    for (let death = 1; death <= 5; death++) {
      threads.at(-1)?.die(1);
      await until(() => !supervisor.alive());
      await until(() => supervisor.alive());
      expect(threads).toHaveLength(death + 1);
    }
    expect(supervisor.restarts()).toBe(5);
    expect(counted).toBe(5);
    expect(delays).toEqual([5, 10, 20, 40, 40]);
    await supervisor.stop();
    expect(supervisor.alive()).toBe(false);
  });

  it('tries again after a restart that fails, and starts nothing once stopped', async () => {
    let starts = 0;
    let current = fakeThread();
    const supervisor = await superviseThread({
      start: async () => {
        starts++;
        if (starts === 2) throw new Error('the database is down');
        current = fakeThread();
        return current;
      },
      onRestart: () => undefined,
      log: quietLog,
      baseDelayMs: 2,
    });
    current.die(1);
    await until(() => starts === 3 && supervisor.alive());
    expect(supervisor.restarts()).toBe(2);

    await supervisor.stop();
    current.die(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(starts).toBe(3);
  });

  it('fails when the first start fails', async () => {
    await expect(
      superviseThread({
        start: () => Promise.reject(new Error('no database')),
        onRestart: () => undefined,
        log: quietLog,
      }),
    ).rejects.toThrow('no database');
  });
});
