import type { Pool } from 'pg';
import { createPostgresEventStore } from '@once/event-store';
import type { EventStore } from '@once/event-store';

/**
 * The event store the projections read: PostgreSQL (the read-model database) by default.
 *
 * @example
 * const store = createEventStoreFromEnv({ pool });
 */
export const createEventStoreFromEnv = (options: { readonly pool: Pool; readonly eventStoreUrl?: string | undefined }): EventStore => {
  if (options.eventStoreUrl) {
    throw new Error('EVENTSTORE_URL is set, but @once/event-store offers no EventStoreDB adapter to read it with');
  }
  return createPostgresEventStore(options.pool);
};
