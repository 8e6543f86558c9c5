import type { Pool } from 'pg';
import type { EventStore } from '@once/event-store';
import { createEventStoreDbEventStore } from '@once/event-store/eventstoredb';
import { createPostgresEventStore, migrateEventStore } from '@once/event-store/postgres';

export interface OpenEventStoreOptions {
  /** The PostgreSQL database: the streams live there unless `eventStoreUrl` is set. */
  readonly pool: Pool;
  /** EventStoreDB (`esdb://…`) for the streams; PostgreSQL when omitted. */
  readonly eventStoreUrl?: string | undefined;
  /** Apply the PostgreSQL store's migrations before answering; leave them to another part of the process when false. */
  readonly migrate: boolean;
  /**
   * PostgreSQL: appends of one event-loop turn share one statement and commit, a batch kept open `waitMicroseconds`
   * past its turn while other appends are in flight (the store's default: on, 0 µs); `false` commits each alone.
   */
  readonly sharedCommits?: { readonly waitMicroseconds: number } | false | undefined;
}

/**
 * The event store every process writes and reads: EventStoreDB when `eventStoreUrl` is set (its global order is
 * `{commit, prepare}`), otherwise PostgreSQL over `pool` (global order `(xid8, position)`). The one place a process
 * picks its store.
 *
 * @example
 * const store = await openEventStore({ pool, eventStoreUrl: settings.EVENTSTORE_URL, migrate: true });
 */
export const openEventStore = async (options: OpenEventStoreOptions): Promise<EventStore> => {
  if (options.eventStoreUrl) return createEventStoreDbEventStore(options.eventStoreUrl);
  if (options.migrate) await migrateEventStore(options.pool);
  const { sharedCommits } = options;
  return createPostgresEventStore(options.pool, {
    migrate: false,
    ...(sharedCommits === false
      ? { shareCommits: false }
      : sharedCommits === undefined
        ? {}
        : { shareCommitsWaitMicroseconds: sharedCommits.waitMicroseconds }),
  });
};
