export { createInMemoryEventStore } from './in-memory-event-store.js';
export type { InMemoryEventStoreOptions } from './in-memory-event-store.js';
