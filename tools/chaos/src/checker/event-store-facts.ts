import { asTenantId, menuStream, streamPrefixes } from '@once/domain';
import type { EventStore, GlobalPosition } from '@once/event-store';
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
  // Every aggregate's streams are `<prefix><tenant>-<id>`, but for the tenant's one menu: `menu-<tenant>`.
  const prefixes = Object.values(streamPrefixes).map((prefix) => `${prefix}${tenantId}-`);
  const menu = menuStream(asTenantId(tenantId));
  const isTenants = (stream: string) =>
    stream === menu || prefixes.some((prefix) => stream.startsWith(prefix));
  const events: LoggedEvent[] = [];
  let after: GlobalPosition | undefined;
  for (;;) {
    const page = await store.readAll({ ...(after ? { after } : {}), maxCount: 1_000 });
    for (const event of page.events)
      if (isTenants(event.stream))
        events.push({ stream: event.stream, type: event.type, data: event.data as LoggedEvent['data'] });
    if (page.caughtUp || page.checkpoint === undefined) return events;
    after = page.checkpoint;
  }
};
