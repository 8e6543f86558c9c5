import type { Pool } from 'pg';
import { onceDefaults } from '@once/settings';

/** How a wait for a projection's position ended. */
export type PositionWait = 'reached' | 'timed-out' | 'abandoned';

export interface PositionWatcherOptions {
  /** Reads every live projection's checkpoint (`formatPosition` text) in one round trip. */
  readonly readCheckpoints: () => Promise<ReadonlyMap<string, string>>;
  /** Pause between reads while someone waits (ms). Default 10. */
  readonly pollMs?: number;
  /** Reads that may wait at once; `waitFor` refuses the next one. `ONCE_MAX_WAITING_READS`'s default when omitted. */
  readonly maxWaiters?: number;
}

export interface PositionWatcher {
  /**
   * Waits until `projection` has applied `position`, at most `timeoutMs`, or until `signal` aborts (the client
   * left). Undefined when `maxWaiters` reads are waiting already: the caller refuses this one.
   */
  waitFor(
    projection: string,
    position: string,
    options: { readonly timeoutMs: number; readonly signal?: AbortSignal },
  ): Promise<PositionWait> | undefined;
  /** Reads waiting now. */
  waiting(): number;
  /** Ends every wait (as timed out) and the polling. */
  close(): void;
}

interface Waiter {
  readonly projection: string;
  readonly position: string;
  readonly deadline: number;
  readonly settle: (outcome: PositionWait) => void;
}

/**
 * One poller for every read that waits for its `Once-Min-Position`: while anyone waits it reads all live checkpoints
 * in one query every `pollMs` and settles the waits they satisfy, so a thousand waiting reads cost one query per
 * tick, not a thousand. A wait ends at its deadline or as soon as its client disconnects.
 *
 * @example
 * const watcher = createPositionWatcher({ readCheckpoints: () => readLiveCheckpoints(pool) });
 * const outcome = await watcher.waitFor('invoices', token, { timeoutMs: 5000, signal });
 */
export const createPositionWatcher = (options: PositionWatcherOptions): PositionWatcher => {
  const pollMs = options.pollMs ?? 10;
  const maxWaiters = options.maxWaiters ?? onceDefaults.ONCE_MAX_WAITING_READS;
  const waiters = new Set<Waiter>();
  let polling = false;
  let closed = false;

  const settleDue = (checkpoints: ReadonlyMap<string, string>): void => {
    const now = Date.now();
    for (const waiter of waiters) {
      const checkpoint = checkpoints.get(waiter.projection);
      if (checkpoint !== undefined && checkpoint >= waiter.position) waiter.settle('reached');
      else if (now >= waiter.deadline) waiter.settle('timed-out');
    }
  };

  const poll = async (): Promise<void> => {
    polling = true;
    try {
      while (waiters.size > 0 && !closed) {
        const checkpoints = await options.readCheckpoints().catch(() => new Map<string, string>());
        settleDue(checkpoints);
        if (waiters.size > 0) await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    } finally {
      polling = false;
    }
  };

  return {
    waitFor: (projection, position, { timeoutMs, signal }) => {
      if (waiters.size >= maxWaiters || closed) return undefined;
      if (signal?.aborted) return Promise.resolve('abandoned');
      return new Promise<PositionWait>((resolve) => {
        const onAbort = (): void => waiter.settle('abandoned');
        const waiter: Waiter = {
          projection,
          position,
          deadline: Date.now() + timeoutMs,
          settle: (outcome) => {
            if (!waiters.delete(waiter)) return;
            signal?.removeEventListener('abort', onAbort);
            resolve(outcome);
          },
        };
        waiters.add(waiter);
        signal?.addEventListener('abort', onAbort, { once: true });
        if (!polling) void poll();
      });
    },
    waiting: () => waiters.size,
    close: () => {
      closed = true;
      for (const waiter of waiters) waiter.settle('timed-out');
    },
  };
};

/**
 * Every live projection's checkpoint, by projection name.
 *
 * @example
 * const checkpoints = await readLiveCheckpoints(pool);
 */
export const readLiveCheckpoints = async (pool: Pool): Promise<ReadonlyMap<string, string>> => {
  const { rows } = await pool.query<{ name: string; position: string | null }>(
    `SELECT v.name, c.position FROM projection_versions v
       JOIN projection_checkpoints c ON c.name = v.name AND c.version = v.version
      WHERE v.state = 'live'`,
  );
  return new Map(rows.flatMap((row) => (row.position === null ? [] : [[row.name, row.position] as const])));
};
