import fp from 'fastify-plugin';
import { openEventStore } from '@once/cafe';
import type { OpenEventStoreOptions } from '@once/cafe';
import type { EventStore } from '@once/event-store';

declare module 'fastify' {
  interface FastifyInstance {
    /** Where aggregate streams and key logs live. */
    eventStore: EventStore;
    /** The store `/health` checks besides PostgreSQL: EventStoreDB when it holds the streams. */
    eventStoreHealth: { readonly name: 'EventStoreDB'; check(): Promise<void> } | undefined;
  }
}

/** Resolves when the store answers a one-event read of the global order in time, rejects otherwise. */
const answersWithin = async (store: EventStore, ms: number): Promise<void> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    await Promise.race([store.readAll({ maxCount: 1 }), late]);
  } finally {
    clearTimeout(timer);
  }
};

/**
 * The event store: EventStoreDB when `eventStoreUrl` is given, otherwise PostgreSQL over the app's pool (migrated at
 * start). Closed when the app closes; the pool stays the postgres plugin's.
 */
export const eventStorePlugin = fp<{
  eventStoreUrl?: string | undefined;
  sharedCommits?: OpenEventStoreOptions['sharedCommits'];
}>(
  async (app, { eventStoreUrl, sharedCommits }) => {
    const store = await openEventStore({ pool: app.pg, eventStoreUrl, migrate: true, sharedCommits });
    app.decorate('eventStore', store);
    app.decorate(
      'eventStoreHealth',
      eventStoreUrl ? { name: 'EventStoreDB' as const, check: () => answersWithin(store, 2_000) } : undefined,
    );
    app.addHook('onClose', async () => store.close());
  },
  { name: 'once-event-store', fastify: '5.x', dependencies: ['once-postgres'] },
);
