import fp from 'fastify-plugin';
import type { GlobalPosition } from '@once/event-store';
import { isPastLogHead } from './log-head.js';
import { createPositionWatcher, readLiveCheckpoints } from './position-watcher.js';
import type { PositionWatcher } from './position-watcher.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Reads that wait for `Once-Min-Position`: one shared watcher, capped, and the log-head check. */
    readWaits: { readonly watcher: PositionWatcher; isPastHead(position: GlobalPosition): Promise<boolean> };
  }
}

export interface ReadWaitsOptions {
  /** Reads that may wait at once (`ONCE_MAX_WAITING_READS`). */
  readonly maxWaiters?: number;
  /** Whether positions can be checked against the PostgreSQL log's head (not with EventStoreDB streams). */
  readonly checkLogHead: boolean;
}

/** The shared watcher every `Once-Min-Position` read waits on (see `readYourWrites`). */
export const readWaitsPlugin = fp<ReadWaitsOptions>(
  async (app, { maxWaiters, checkLogHead }) => {
    const watcher = createPositionWatcher({
      readCheckpoints: () => readLiveCheckpoints(app.pg),
      ...(maxWaiters === undefined ? {} : { maxWaiters }),
    });
    app.decorate('readWaits', {
      watcher,
      isPastHead: async (position: GlobalPosition) => checkLogHead && isPastLogHead(app.pg, position),
    });
    app.addHook('preClose', async () => watcher.close());
  },
  { name: 'once-read-waits', fastify: '5.x', dependencies: ['once-postgres'] },
);
