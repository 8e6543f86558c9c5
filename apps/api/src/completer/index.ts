export { startApiCompleter, startCommandCompleter } from './api-completer.js';
export type { ApiCompleterOptions, CommandCompleterOptions } from './api-completer.js';
export {
  assertKeyRetentionCoversRetries,
  cardRetryPolicyFromEnv,
  KeyRetentionTooShortError,
  settlementRetryWindowMs,
} from './retention-floor.js';
