import type { Intent } from '../intent/index.js';
import type { IntentStorage } from './intent-storage.js';
import { IntentStorageError, isStoredIntent } from './intent-storage.js';

const STORE = 'intents';
const KEY_INDEX = 'by-key';

type IntentRow = Intent & { readonly seq?: number };

const requestResult = <T>(request: IDBRequest<T>): Promise<T> =>
  new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
  });

const transactionDone = (transaction: IDBTransaction): Promise<void> =>
  new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onerror = () => reject(transaction.error ?? new Error('IndexedDB transaction failed'));
    transaction.onabort = () => reject(transaction.error ?? new Error('IndexedDB transaction aborted'));
  });

const toIntent = (row: unknown, where: string): Intent => {
  if (!isStoredIntent(row))
    throw new IntentStorageError('storage-corrupted', `A row in ${where} is not an intent`);
  return { key: row.key, request: row.request, createdAt: row.createdAt };
};

/**
 * Opens (creating if needed) the IndexedDB database behind {@link createIndexedDbIntentStorage}.
 * Rejects with `storage-unavailable` when IndexedDB is absent or refuses to open (some private modes do).
 *
 * @param name the database name.
 * @param factory the IndexedDB factory; `globalThis.indexedDB` by default.
 * @example
 * const database = await openIntentDatabase('once-intents:payments');
 */
export const openIntentDatabase = (name: string, factory?: IDBFactory): Promise<IDBDatabase> => {
  const indexedDb = factory ?? globalThis.indexedDB;
  if (indexedDb === undefined) {
    return Promise.reject(new IntentStorageError('storage-unavailable', 'IndexedDB is not available here'));
  }
  return new Promise((resolve, reject) => {
    let request: IDBOpenDBRequest;
    try {
      request = indexedDb.open(name, 1);
    } catch (error) {
      reject(
        new IntentStorageError('storage-unavailable', `IndexedDB refused to open ${name}`, { cause: error }),
      );
      return;
    }
    request.onupgradeneeded = () => {
      const store = request.result.createObjectStore(STORE, { keyPath: 'seq', autoIncrement: true });
      store.createIndex(KEY_INDEX, 'key', { unique: true });
    };
    request.onsuccess = () => {
      const database = request.result;
      database.onversionchange = () => database.close();
      resolve(database);
    };
    request.onerror = () =>
      reject(
        new IntentStorageError('storage-unavailable', `IndexedDB refused to open ${name}`, {
          cause: request.error,
        }),
      );
    request.onblocked = () =>
      reject(
        new IntentStorageError('storage-unavailable', `IndexedDB database ${name} is blocked by another tab`),
      );
  });
};

/**
 * Creates an {@link IntentStorage} over an open IndexedDB database: one row per intent under an auto-incremented
 * sequence (the saving order), a unique index on the key, and `strict` durability so a write has reached the disk
 * when `save` resolves.
 *
 * @param database a database from {@link openIntentDatabase}.
 * @example
 * const storage = createIndexedDbIntentStorage(await openIntentDatabase('once-intents:payments'));
 */
export const createIndexedDbIntentStorage = (database: IDBDatabase): IntentStorage => {
  const where = `IndexedDB database ${database.name}`;
  const transaction = (mode: IDBTransactionMode): IDBTransaction =>
    database.transaction(STORE, mode, { durability: mode === 'readwrite' ? 'strict' : 'default' });

  return {
    save: async (intent) => {
      const tx = transaction('readwrite');
      const done = transactionDone(tx);
      const store = tx.objectStore(STORE);
      const seq = await requestResult(store.index(KEY_INDEX).getKey(intent.key));
      const row: IntentRow = { key: intent.key, request: intent.request, createdAt: intent.createdAt };
      store.put(seq === undefined ? row : { ...row, seq });
      await done;
    },
    load: async (key) => {
      const row: unknown = await requestResult(
        transaction('readonly').objectStore(STORE).index(KEY_INDEX).get(key),
      );
      return row === undefined ? undefined : toIntent(row, where);
    },
    remove: async (key) => {
      const tx = transaction('readwrite');
      const done = transactionDone(tx);
      const store = tx.objectStore(STORE);
      const seq = await requestResult(store.index(KEY_INDEX).getKey(key));
      if (seq !== undefined) store.delete(seq);
      await done;
    },
    list: async () => {
      const rows: unknown[] = await requestResult(transaction('readonly').objectStore(STORE).getAll());
      return rows.map((row) => toIntent(row, where));
    },
  };
};
