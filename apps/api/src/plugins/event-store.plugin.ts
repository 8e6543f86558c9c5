import fp from 'fastify-plugin';
import { createPostgresEventStore, migrateEventStore } from '@once/event-store';
import type { EventStore } from '@once/event-store';

declare module 'fastify' {
  interface FastifyInstance {
    /** Where aggregate streams and key logs live. */
    eventStore: EventStore;
  }
}

/**
 * The event store: PostgreSQL over the app's pool (migrated at start). Closed when the app closes; the pool stays
 * the postgres plugin's.
 */
export const eventStorePlugin = fp(
  async (app) => {
    await migrateEventStore(app.pg);
    const store = createPostgresEventStore(app.pg, { migrate: false });
    app.decorate('eventStore', store);
    app.addHook('onClose', async () => store.close());
  },
  { name: 'once-event-store', fastify: '5.x', dependencies: ['once-postgres'] },
);
