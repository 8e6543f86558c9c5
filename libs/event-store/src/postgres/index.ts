export { createPostgresEventStore } from './postgres-event-store.js';
export type { PostgresEventStoreOptions } from './postgres-event-store.js';
export { eventStoreMigrations, migrateEventStore } from './event-store-migrations.js';
export { removeExpiredStreams } from './expired-streams.js';
export type { ExpiredStreamsBatch, ExpiredStreamsBatchOptions } from './expired-streams.js';
export { scavengerLockKey, startStreamScavenger } from './stream-scavenger.js';
export type { ScavengerRound, StreamScavenger, StreamScavengerOptions } from './stream-scavenger.js';
