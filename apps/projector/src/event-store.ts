import type { Pool } from 'pg';
import { createPostgresEventStore } from '@once/event-store/postgres';
import { createEventStoreDbEventStore } from '@once/event-store/eventstoredb';
import type { EventStore } from '@once/event-store';

/**
 * The event store the projections read: EventStoreDB when `eventStoreUrl` is set (its global order is
 * `{commit, prepare}`), otherwise PostgreSQL in the read-model database (global order `(xid8, position)`).
 *
 * @example
 * const store = createEventStoreFromEnv({ pool, eventStoreUrl: process.env.EVENTSTORE_URL });
 */
export const createEventStoreFromEnv = (options: {
  readonly pool: Pool;
  readonly eventStoreUrl?: string | undefined;
}): EventStore =>
  options.eventStoreUrl
    ? createEventStoreDbEventStore(options.eventStoreUrl)
    : createPostgresEventStore(options.pool);
