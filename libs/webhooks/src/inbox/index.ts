export { receiveWebhookOnceInStore } from './event-store-inbox.js';
export type { InboxWrite, StoreInboxOptions, StoreInboxReceipt } from './event-store-inbox.js';
