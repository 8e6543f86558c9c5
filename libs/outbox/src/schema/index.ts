export { migrateOutbox } from './outbox-schema.js';
