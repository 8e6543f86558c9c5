export {
  decodeWebhookSecret,
  generateWebhookSecret,
  InvalidWebhookSecretError,
  isWebhookSecret,
} from './secrets/index.js';
export { defaultToleranceSeconds, signWebhook, verifyWebhook, webhookHeaders } from './signatures/index.js';
export type {
  VerifyWebhookInput,
  WebhookContent,
  WebhookHeaders,
  WebhookRefusal,
  WebhookVerification,
} from './signatures/index.js';
export {
  migrateWebhookInbox,
  receiveWebhookOnce,
  receiveWebhookOnceInStore,
  webhookInboxMigrations,
} from './inbox/index.js';
export type {
  InboxClaim,
  InboxReceipt,
  InboxWrite,
  StoreInboxOptions,
  StoreInboxReceipt,
} from './inbox/index.js';
export { checkWebhookUrl, classifyAddress, strictWebhookUrlPolicy } from './urls/index.js';
export type { AddressClass, ResolveHost, WebhookUrlCheck, WebhookUrlPolicy } from './urls/index.js';
