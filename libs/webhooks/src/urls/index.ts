export { classifyAddress } from './address-class.js';
export type { AddressClass } from './address-class.js';
export { checkWebhookUrl, strictWebhookUrlPolicy } from './webhook-url-policy.js';
export type {
  ResolveHost,
  WebhookUrlCheck,
  WebhookUrlPolicy,
  WebhookUrlRefusal,
} from './webhook-url-policy.js';
