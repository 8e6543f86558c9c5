export {
  completerOutageEnvironment,
  completerOutageLeaseMs,
  playCompleterOutage,
} from './completer-outage.js';
export type { CompleterOutageOptions } from './completer-outage.js';
