export { startCommandCompleter } from './command-completer.js';
export type { CommandCompleterDeps, CommandCompleterSettings } from './command-completer.js';
export {
  assertKeyRetentionCoversRetries,
  cardRetryPolicyFromEnv,
  KeyRetentionTooShortError,
  settlementRetryWindowMs,
} from './retention-floor.js';
