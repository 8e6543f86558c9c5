export { startEventStoreDb } from './eventstore-container.js';
export type { EventStoreTarget } from './eventstore-container.js';
