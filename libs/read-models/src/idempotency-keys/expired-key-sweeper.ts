import type { Pool } from 'pg';
import type { EventStore } from '@once/event-store';
import type { ProjectorTask } from '@once/projections';
import { sweepExpiredKeys } from './sweep-expired-keys.js';
import type { KeySweepCursor } from './sweep-expired-keys.js';

export interface ExpiredKeySweeperOptions {
  /** Pause between sweeps. Default 60,000 ms. */
  readonly intervalMs?: number;
  /** Rows idle for less than this are not checked. Default 24 h, the shortest key retention. */
  readonly minimumRetentionSeconds?: number;
}

/**
 * A task of the projector that removes key-table rows whose key stream has expired, so the table keeps matching the
 * log; each sweep resumes where the previous one stopped.
 *
 * @example
 * await startProjector({ pool, store, projections: allProjections, tasks: [expiredKeySweeper(pool, store)] });
 */
export const expiredKeySweeper = (
  pool: Pool,
  store: EventStore,
  options: ExpiredKeySweeperOptions = {},
): ProjectorTask => {
  let after: KeySweepCursor | undefined;
  return {
    name: 'key sweep',
    intervalMs: options.intervalMs ?? 60_000,
    run: async (logger) => {
      const notUpdatedSince = new Date(Date.now() - (options.minimumRetentionSeconds ?? 24 * 3600) * 1000);
      const { removed, next } = await sweepExpiredKeys(pool, store, {
        notUpdatedSince,
        ...(after ? { after } : {}),
      });
      after = next;
      if (removed > 0) logger.info({ removed }, 'removed expired idempotency keys from the key table');
    },
  };
};
