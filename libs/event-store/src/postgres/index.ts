export { createPostgresEventStore } from './postgres-event-store.js';
export type { PostgresEventStoreOptions } from './postgres-event-store.js';
export { eventStoreMigrations, migrateEventStore } from './event-store-migrations.js';
