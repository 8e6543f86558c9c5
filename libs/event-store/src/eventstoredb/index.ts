export { createEventStoreDbEventStore } from './eventstoredb-event-store.js';
export type { EventStoreDbEventStoreOptions } from './eventstoredb-event-store.js';
export { eventStoreDbConnectionStringProblem } from './eventstoredb-connection-string.js';
export { startServerScavenge } from './eventstoredb-operations.js';
export type { ServerScavenge } from './eventstoredb-operations.js';
export { serverScavengerLockKey, startServerScavenger } from './server-scavenger.js';
export type { ServerScavengeRound, ServerScavenger, ServerScavengerOptions } from './server-scavenger.js';
