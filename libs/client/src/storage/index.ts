export { IntentStorageError, isStoredIntent, toStoredIntents } from './intent-storage.js';
export type { IntentStorage, IntentStorageErrorCode } from './intent-storage.js';
export { createMemoryIntentStorage } from './memory-intent-storage.js';
export { createLocalStorageIntentStorage } from './local-storage-intent-storage.js';
export { createIndexedDbIntentStorage, openIntentDatabase } from './indexeddb-intent-storage.js';
export { openBrowserIntentStorage } from './browser-intent-storage.js';
export type { BrowserIntentStorage, BrowserStorageOptions } from './browser-intent-storage.js';
