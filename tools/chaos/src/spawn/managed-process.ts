import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

/** A child process the system keeps running: restarted after it dies, unless the system is stopping. */
export interface ManagedProcess {
  readonly name: string;
  /** The running child's pid, undefined while it is down. */
  pid(): number | undefined;
  /**
   * Kills the child with SIGKILL; the supervisor restarts it after `restartDelayMs`. Resolves when the new child is
   * ready (or the process is stopping); rejects when the new child cannot become ready in time.
   */
  kill9(): Promise<void>;
  /** True while a child runs that became ready. */
  isReady(): boolean;
  /** Resolves when the current child is ready (see `ready`). */
  whenReady(): Promise<void>;
  /** Log lines printed since the current child started. */
  linesSinceStart(): readonly string[];
  /** The last lines of output, for a failure message. */
  tail(): string;
  /** Stops for good: SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface ManagedProcessOptions {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** Resolves when a freshly started child can serve (given its output so far); rejects when it cannot in time. */
  readonly ready: (child: ChildProcess, output: () => readonly string[]) => Promise<void>;
  readonly restartDelayMs: number;
  readonly onEvent?: (event: 'exited' | 'restarted', name: string) => void;
}

const keptLines = 400;

/** Every child of a supervisor in this process that still runs. */
const runningChildren = new Set<ChildProcess>();

/**
 * SIGKILL to every supervised child still running: for the process's `exit` event, so that a run ended by a
 * library's signal handler, or by `process.exit` anywhere, leaves no child behind (an orderly stop uses `stop`).
 *
 * @example
 * process.on('exit', killRunningChildren);
 */
export const killRunningChildren = (): void => {
  for (const child of runningChildren) child.kill('SIGKILL');
};

/**
 * Starts a supervised child and waits until it is ready.
 *
 * @example
 * const api = await startManagedProcess({ name: 'api-1', command, args, env, ready, restartDelayMs: 500 });
 * api.kill9(); // restarted half a second later
 */
export const startManagedProcess = async (options: ManagedProcessOptions): Promise<ManagedProcess> => {
  let child: ChildProcess | undefined;
  let stopping = false;
  let ready: Promise<void> = Promise.resolve();
  let lines: string[] = [];
  let readyChild: ChildProcess | undefined;
  // Those waiting in `kill9` for the child that replaces the one they killed.
  let waiters: { readonly resolve: () => void; readonly reject: (error: unknown) => void }[] = [];
  const wake = (error?: unknown) => {
    const woken = waiters;
    waiters = [];
    for (const waiter of woken) {
      if (error === undefined) waiter.resolve();
      else waiter.reject(error);
    }
  };
  let recent: string[] = [];

  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      lines.push(line);
      recent.push(line);
      if (lines.length > keptLines * 4) lines = lines.slice(-keptLines * 2);
      if (recent.length > keptLines) recent = recent.slice(-keptLines / 2);
    }
  };

  const launch = (): void => {
    lines = [];
    const started = spawn(options.command, [...options.args], {
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    runningChildren.add(started);
    started.stdout.on('data', collect);
    started.stderr.on('data', collect);
    ready = options.ready(started, () => lines);
    ready.then(
      () => {
        readyChild = started;
        wake();
      },
      (error: unknown) => {
        // A replacement that exited is restarted again and may yet come up; one still running that never became
        // ready in time fails whoever waits for it, instead of leaving them waiting for ever.
        const exited = started.exitCode !== null || started.signalCode !== null;
        if (!exited && child === started && !stopping) {
          wake(new Error(`${options.name} did not become ready again: ${String(error)}`));
        }
      },
    );
    started.once('exit', () => {
      runningChildren.delete(started);
      if (child === started) child = undefined;
      if (readyChild === started) readyChild = undefined;
      if (stopping) {
        wake();
        return;
      }
      options.onEvent?.('exited', options.name);
      void sleep(options.restartDelayMs).then(() => {
        if (stopping) return;
        launch();
        options.onEvent?.('restarted', options.name);
      });
    });
  };

  launch();
  try {
    await ready;
  } catch (error) {
    // A child that never became ready is not left running behind a failed start.
    stopping = true;
    child?.kill('SIGKILL');
    throw error;
  }

  return {
    name: options.name,
    pid: () => child?.pid,
    kill9: async () => {
      const victim = child;
      if (victim === undefined) return;
      const restarted = new Promise<void>((resolve, reject) => waiters.push({ resolve, reject }));
      victim.kill('SIGKILL');
      await restarted;
    },
    isReady: () => readyChild !== undefined && readyChild === child,
    whenReady: () => ready,
    linesSinceStart: () => lines,
    tail: () => recent.slice(-40).join('\n'),
    stop: async (graceMs = 5_000) => {
      stopping = true;
      const running = child;
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
      const exited = once(running, 'exit');
      running.kill('SIGTERM');
      const timer = setTimeout(() => running.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
};

/** Ready when `url` answers 2xx; gives up after `timeoutMs` or when the child exits. */
export const readyWhenHealthy =
  (url: string, timeoutMs = 180_000) =>
  async (child: ChildProcess): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`exited before ${url} answered`);
      const healthy = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
        (response) => response.ok,
        () => false,
      );
      if (healthy) return;
      await sleep(100);
    }
    throw new Error(`${url} did not answer within ${String(timeoutMs)} ms`);
  };

/** Ready when the child has printed a line containing `text`; gives up after `timeoutMs` or when the child exits. */
export const readyWhenPrinted =
  (text: string, timeoutMs = 180_000) =>
  async (child: ChildProcess, output: () => readonly string[]): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (output().some((line) => line.includes(text))) return;
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`exited before printing ${text}`);
      await sleep(100);
    }
    throw new Error(`did not print ${text} within ${String(timeoutMs)} ms`);
  };
