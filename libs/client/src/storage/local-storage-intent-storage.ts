import type { IntentStorage } from './intent-storage.js';
import { IntentStorageError } from './intent-storage.js';
import { createKeyValueIntentStorage } from './key-value-intent-storage.js';

/**
 * Creates an {@link IntentStorage} over Web Storage (`localStorage`): every intent of one name under one item,
 * as a JSON array in saving order. `setItem` replaces the item whole, so a write is all or nothing.
 *
 * @param name names the item (`once-intents:<name>`).
 * @param storage the Web Storage area; `globalThis.localStorage` by default.
 * @example
 * const storage = createLocalStorageIntentStorage('payments');
 */
export const createLocalStorageIntentStorage = (name: string, storage?: Storage): IntentStorage =>
  createKeyValueIntentStorage(
    `once-intents:${name}`,
    () => {
      const found = storage ?? (globalThis.localStorage as Storage | undefined);
      if (found === undefined)
        throw new IntentStorageError('storage-unavailable', 'localStorage is not available here');
      return found;
    },
    'localStorage',
  );
