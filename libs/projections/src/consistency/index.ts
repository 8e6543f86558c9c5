export { readLiveCheckpoint, waitForPosition } from './wait-for-position.js';
export type { WaitForPositionOptions, WaitForPositionResult } from './wait-for-position.js';
