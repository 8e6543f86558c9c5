export { createOfflineQueue, DEFAULT_KEY_RETENTION_MS } from './offline-queue.js';
export type { OfflineQueue, OfflineQueueOptions, QueueEvent } from './offline-queue.js';
export { connectBrowserConnectivity } from './browser-connectivity.js';
export type { ConnectivityTarget } from './browser-connectivity.js';
