export { consistencyPlugin } from './consistency.plugin.js';
export {
  minPositionHeader,
  positionHeader,
  positionToken,
  readConsistencyHeaders,
  readModelDescription,
  readYourWrites,
  staleHeader,
} from './read-your-writes.js';
export type { ReadModelProjection } from './read-your-writes.js';
export { documentConsistencyHeaders, withWritePosition } from './openapi-headers.js';
export { readWaitsPlugin } from './read-waits.plugin.js';
export type { ReadWaitsOptions } from './read-waits.plugin.js';
export { createPositionWatcher, readLiveCheckpoints } from './position-watcher.js';
export type { PositionWait, PositionWatcher, PositionWatcherOptions } from './position-watcher.js';
