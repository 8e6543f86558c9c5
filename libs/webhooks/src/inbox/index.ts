export { migrateWebhookInbox, receiveWebhookOnce, webhookInboxMigrations } from './postgres-inbox.js';
export type { InboxClaim, InboxReceipt } from './postgres-inbox.js';
export { receiveWebhookOnceInStore } from './event-store-inbox.js';
export type { InboxWrite, StoreInboxOptions, StoreInboxReceipt } from './event-store-inbox.js';
