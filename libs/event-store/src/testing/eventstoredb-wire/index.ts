export { startWireEventStoreDb } from './wire-server.js';
export type { WireEventStoreDb, WireEventStoreDbOptions } from './wire-server.js';
