export { subscribeByPolling } from './polling-subscription.js';
export type { AppendSignal } from './polling-subscription.js';
