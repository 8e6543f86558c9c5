import type { IntentStorage } from './intent-storage.js';
import { IntentStorageError } from './intent-storage.js';
import { createIndexedDbIntentStorage, openIntentDatabase } from './indexeddb-intent-storage.js';
import { createLocalStorageIntentStorage } from './local-storage-intent-storage.js';

/** A browser {@link IntentStorage} that says which backend it ended up on. */
export type BrowserIntentStorage = IntentStorage & { readonly backend: 'indexeddb' | 'localstorage' };

/** The browser APIs to use; the globals by default (tests pass `indexedDB: null` to force the fallback). */
export interface BrowserStorageOptions {
  readonly indexedDB?: IDBFactory | null;
  readonly localStorage?: Storage | null;
}

const usableLocalStorage = (candidate: Storage | null | undefined): Storage | undefined => {
  try {
    const area = candidate === null ? undefined : (candidate ?? globalThis.localStorage);
    if (area === undefined) return undefined;
    const probe = 'once-intents:probe';
    area.setItem(probe, probe);
    area.removeItem(probe);
    return area;
  } catch {
    return undefined;
  }
};

/**
 * Opens durable intent storage in a browser: IndexedDB when it opens, otherwise `localStorage`.
 * Rejects with `storage-unavailable` when neither works, rather than falling back to memory and losing intents.
 *
 * @param name separates one queue's intents from another's.
 * @param options the browser APIs to use.
 * @example
 * const storage = await openBrowserIntentStorage('payments');
 * storage.backend; // 'indexeddb'
 */
export const openBrowserIntentStorage = async (
  name: string,
  options: BrowserStorageOptions = {},
): Promise<BrowserIntentStorage> => {
  let indexedDbFailure: unknown;
  if (options.indexedDB !== null) {
    try {
      const database = await openIntentDatabase(`once-intents:${name}`, options.indexedDB);
      return { ...createIndexedDbIntentStorage(database), backend: 'indexeddb' };
    } catch (error) {
      indexedDbFailure = error;
    }
  }
  const area = usableLocalStorage(options.localStorage);
  if (area !== undefined) return { ...createLocalStorageIntentStorage(name, area), backend: 'localstorage' };
  throw new IntentStorageError('storage-unavailable', 'Neither IndexedDB nor localStorage is available', {
    cause: indexedDbFailure,
  });
};
