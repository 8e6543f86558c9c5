export { migrateWebhookInbox, receiveWebhookOnce, webhookInboxMigrations } from './postgres-inbox.js';
export type { InboxClaim, InboxReceipt } from './postgres-inbox.js';
