export { subscribeByPolling } from './polling-subscription.js';
export type { AppendSignal } from './polling-subscription.js';
export { createSubscriptionRegistry } from './subscription-registry.js';
export type { SubscriptionRegistry } from './subscription-registry.js';
