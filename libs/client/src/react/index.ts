export { useIntent } from './use-intent.js';
export type { IntentHandle, IntentState } from './use-intent.js';
