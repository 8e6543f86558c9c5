import type { EventStore, GlobalPosition } from '@once/event-store';
import { tenantStreamPrefixes } from './system-facts.js';
import type { LoggedEvent } from './system-facts.js';

/**
 * The tenant's domain events in the global order, read from any event store through its port (an EventStoreDB run,
 * whose streams are not in PostgreSQL): the same events `readTenantEvents` selects from PostgreSQL's `events`.
 *
 * @example
 * const events = await readTenantEventsFromStore(createEventStoreDbEventStore(url), tenantId);
 */
export const readTenantEventsFromStore = async (
  store: EventStore,
  tenantId: string,
): Promise<LoggedEvent[]> => {
  const filter = { streamPrefixes: tenantStreamPrefixes(tenantId) };
  const events: LoggedEvent[] = [];
  let after: GlobalPosition | undefined;
  for (;;) {
    const page = await store.readAll({ ...(after ? { after } : {}), filter, maxCount: 1_000 });
    for (const event of page.events)
      events.push({ stream: event.stream, type: event.type, data: event.data as LoggedEvent['data'] });
    if (page.caughtUp || page.checkpoint === undefined) return events;
    after = page.checkpoint;
  }
};
