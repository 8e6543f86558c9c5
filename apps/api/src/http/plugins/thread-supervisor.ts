/** A started thread as its supervisor sees it. */
export interface SupervisedThread {
  /** Settles with the exit code when the thread ends, for whatever reason. */
  readonly exited: Promise<number>;
  /** Asks the thread to stop and waits for it. */
  stop(): Promise<void>;
}

export interface ThreadSupervisorOptions {
  /** Starts the thread; resolves once it runs, rejects when it could not start. */
  readonly start: () => Promise<SupervisedThread>;
  /** Called at each restart (a counter). */
  readonly onRestart: () => void;
  readonly log: {
    warn(details: object, message: string): void;
    error(details: object, message: string): void;
  };
  /** The first wait before a restart; it doubles with each failure in a row. Default 1,000 ms. */
  readonly baseDelayMs?: number;
  /** The longest wait before a restart. Default 60,000 ms. */
  readonly maxDelayMs?: number;
  /** A thread that ran this long before dying starts the backoff over. Default 60,000 ms. */
  readonly stableAfterMs?: number;
}

/** A thread kept running. */
export interface ThreadSupervisor {
  /** True while the thread runs (false while it waits to be restarted). */
  alive(): boolean;
  /** Restarts so far. */
  restarts(): number;
  /** Stops the thread and any restart to come. */
  stop(): Promise<void>;
}

/**
 * Starts a thread and restarts it whenever it dies, after an exponential backoff (1 s, 2 s, 4 s … 60 s; back to 1 s
 * after it ran a minute). The first start must succeed (its error is thrown); a restart that fails is tried again
 * after the next backoff.
 *
 * @example
 * const projector = await superviseThread({ start: startProjectorThread, onRestart: () => counter.inc(), log });
 */
export const superviseThread = async (options: ThreadSupervisorOptions): Promise<ThreadSupervisor> => {
  const baseDelayMs = options.baseDelayMs ?? 1_000;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const stableAfterMs = options.stableAfterMs ?? 60_000;
  let current = await options.start();
  let startedAt = Date.now();
  let alive = true;
  let stopping = false;
  let failures = 0;
  let restarts = 0;
  let timer: NodeJS.Timeout | undefined;

  const scheduleRestart = (): void => {
    const delayMs = Math.min(maxDelayMs, baseDelayMs * 2 ** failures);
    failures++;
    timer = setTimeout(() => void restart(), delayMs);
    options.log.warn({ delayMs, failures }, 'restarting the thread after a backoff');
  };

  const watch = (thread: SupervisedThread): void => {
    void thread.exited.then((code) => {
      if (stopping || thread !== current) return;
      alive = false;
      if (Date.now() - startedAt >= stableAfterMs) failures = 0;
      options.log.error({ code }, 'the thread died');
      scheduleRestart();
    });
  };

  const restart = async (): Promise<void> => {
    if (stopping) return;
    restarts++;
    options.onRestart();
    try {
      const thread = await options.start();
      if (stopping) {
        await thread.stop();
        return;
      }
      current = thread;
      startedAt = Date.now();
      alive = true;
      watch(thread);
    } catch (error) {
      options.log.error({ err: error }, 'the thread did not start again');
      if (!stopping) scheduleRestart();
    }
  };

  watch(current);
  return {
    alive: () => alive && !stopping,
    restarts: () => restarts,
    stop: async () => {
      stopping = true;
      clearTimeout(timer);
      await current.stop();
    },
  };
};
