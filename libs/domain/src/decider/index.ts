export { foldEvents } from './decider.js';
export type { Decider, Message } from './decider.js';
export { ChunkedMap } from './chunked-map.js';
