import type { Intent } from '../intent/index.js';
import type { IntentStorage } from './intent-storage.js';
import { IntentStorageError, toStoredIntents } from './intent-storage.js';

/**
 * A string key-value area, synchronous or not: Web Storage (`localStorage`) and React Native's AsyncStorage both
 * have this shape.
 */
export interface KeyValueArea {
  getItem(key: string): string | null | Promise<string | null>;
  setItem(key: string, value: string): void | Promise<void>;
  removeItem(key: string): void | Promise<void>;
}

/**
 * Creates an {@link IntentStorage} that keeps every intent of one queue under one item, as a JSON array in saving
 * order. Each write replaces the item whole, so it is all or nothing; the storage's own operations run one at a time,
 * so two saves never read the same list and lose one another.
 *
 * @param itemName the item that holds the intents.
 * @param area where the item lives, or a function that finds it (and throws `storage-unavailable` when it cannot).
 * @param label names the area in errors (`localStorage`, `AsyncStorage`).
 * @example
 * const storage = createKeyValueIntentStorage('once-intents:payments', AsyncStorage, 'AsyncStorage');
 */
export const createKeyValueIntentStorage = (
  itemName: string,
  area: KeyValueArea | (() => KeyValueArea),
  label: string,
): IntentStorage => {
  const resolveArea = typeof area === 'function' ? area : () => area;
  const where = `${label} item ${itemName}`;
  const read = async (): Promise<Intent[]> => {
    const text = await resolveArea().getItem(itemName);
    if (text === null || text === undefined) return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new IntentStorageError('storage-corrupted', `${where} is not JSON`, { cause: error });
    }
    return toStoredIntents(parsed, where);
  };
  const write = async (intents: Intent[]): Promise<void> => {
    try {
      if (intents.length === 0) await resolveArea().removeItem(itemName);
      else await resolveArea().setItem(itemName, JSON.stringify(intents));
    } catch (error) {
      if (error instanceof IntentStorageError) throw error;
      throw new IntentStorageError('storage-unavailable', `${label} refused to store ${itemName}`, {
        cause: error,
      });
    }
  };

  let queue: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(operation: () => Promise<T>): Promise<T> => {
    const result = queue.then(operation, operation);
    queue = result.catch(() => undefined);
    return result;
  };

  return {
    save: (intent) =>
      oneAtATime(async () => {
        const intents = await read();
        const index = intents.findIndex((stored) => stored.key === intent.key);
        if (index === -1) intents.push(intent);
        else intents[index] = intent;
        await write(intents);
      }),
    load: (key) => oneAtATime(async () => (await read()).find((stored) => stored.key === key)),
    remove: (key) =>
      oneAtATime(async () => {
        const intents = await read();
        const kept = intents.filter((stored) => stored.key !== key);
        if (kept.length !== intents.length) await write(kept);
      }),
    list: () => oneAtATime(read),
  };
};
