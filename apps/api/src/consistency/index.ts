export { consistencyPlugin } from './consistency.plugin.js';
export {
  defaultReadWaitMs,
  minPositionHeader,
  positionHeader,
  positionToken,
  readConsistencyHeaders,
  readModelDescription,
  readYourWrites,
  staleHeader,
} from './read-your-writes.js';
export type { ReadModelProjection } from './read-your-writes.js';
export { documentConsistencyHeaders } from './openapi-headers.js';
