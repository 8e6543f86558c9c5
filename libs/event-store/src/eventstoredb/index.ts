export { createEventStoreDbEventStore } from './eventstoredb-event-store.js';
export type { EventStoreDbEventStoreOptions } from './eventstoredb-event-store.js';
export { eventStoreDbConnectionStringProblem } from './eventstoredb-connection-string.js';
