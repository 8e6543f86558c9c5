import fp from 'fastify-plugin';
import { createEventStoreDbEventStore, createPostgresEventStore, migrateEventStore } from '@once/event-store';
import type { EventStore } from '@once/event-store';

declare module 'fastify' {
  interface FastifyInstance {
    /** Where aggregate streams and key logs live. */
    eventStore: EventStore;
  }
}

/**
 * The event store: EventStoreDB when `eventStoreUrl` is given, otherwise PostgreSQL over the app's pool (migrated at
 * start). Closed when the app closes; the pool stays the postgres plugin's.
 */
export const eventStorePlugin = fp<{ eventStoreUrl?: string | undefined }>(
  async (app, { eventStoreUrl }) => {
    let store: EventStore;
    if (eventStoreUrl) {
      store = createEventStoreDbEventStore(eventStoreUrl);
    } else {
      await migrateEventStore(app.pg);
      store = createPostgresEventStore(app.pg, { migrate: false });
    }
    app.decorate('eventStore', store);
    app.addHook('onClose', async () => store.close());
  },
  { name: 'once-event-store', fastify: '5.x', dependencies: ['once-postgres'] },
);
