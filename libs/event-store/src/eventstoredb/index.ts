export { createEventStoreDbEventStore } from './eventstoredb-event-store.js';
export type { EventStoreDbEventStoreOptions } from './eventstoredb-event-store.js';
