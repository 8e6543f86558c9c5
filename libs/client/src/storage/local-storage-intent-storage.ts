import type { Intent } from '../intent/index.js';
import type { IntentStorage } from './intent-storage.js';
import { IntentStorageError, toStoredIntents } from './intent-storage.js';

/**
 * Creates an {@link IntentStorage} over Web Storage (`localStorage`): every intent of one name under one item,
 * as a JSON array in saving order. `setItem` replaces the item whole, so a write is all or nothing.
 *
 * @param name names the item (`once-intents:<name>`).
 * @param storage the Web Storage area; `globalThis.localStorage` by default.
 * @example
 * const storage = createLocalStorageIntentStorage('payments');
 */
export const createLocalStorageIntentStorage = (name: string, storage?: Storage): IntentStorage => {
  const itemName = `once-intents:${name}`;
  const area = (): Storage => {
    const found = storage ?? globalThis.localStorage;
    if (found === undefined)
      throw new IntentStorageError('storage-unavailable', 'localStorage is not available here');
    return found;
  };
  const read = (): Intent[] => {
    const text = area().getItem(itemName);
    if (text === null) return [];
    try {
      return toStoredIntents(JSON.parse(text), `localStorage item ${itemName}`);
    } catch (error) {
      if (error instanceof IntentStorageError) throw error;
      throw new IntentStorageError('storage-corrupted', `localStorage item ${itemName} is not JSON`, {
        cause: error,
      });
    }
  };
  const write = (intents: Intent[]): void => {
    try {
      if (intents.length === 0) area().removeItem(itemName);
      else area().setItem(itemName, JSON.stringify(intents));
    } catch (error) {
      if (error instanceof IntentStorageError) throw error;
      throw new IntentStorageError('storage-unavailable', `localStorage refused to store ${itemName}`, {
        cause: error,
      });
    }
  };

  return {
    save: async (intent) => {
      const intents = read();
      const index = intents.findIndex((stored) => stored.key === intent.key);
      if (index === -1) intents.push(intent);
      else intents[index] = intent;
      write(intents);
    },
    load: async (key) => read().find((stored) => stored.key === key),
    remove: async (key) => {
      const intents = read();
      const kept = intents.filter((stored) => stored.key !== key);
      if (kept.length !== intents.length) write(kept);
    },
    list: async () => read(),
  };
};
