import type { IntentStorage } from './intent-storage.js';
import { createKeyValueIntentStorage } from './key-value-intent-storage.js';

/** The part of React Native's AsyncStorage (`@react-native-async-storage/async-storage`) the intents need. */
export interface AsyncKeyValueStorage {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
}

/**
 * Creates an {@link IntentStorage} over React Native's AsyncStorage, or anything of its shape (an encrypted store,
 * MMKV behind a small wrapper): every intent of one name under one item, replaced whole on each write.
 *
 * @param name names the item (`once-intents:<name>`).
 * @param storage the AsyncStorage object.
 * @example
 * import AsyncStorage from '@react-native-async-storage/async-storage';
 * const storage = createAsyncStorageIntentStorage('payments', AsyncStorage);
 */
export const createAsyncStorageIntentStorage = (name: string, storage: AsyncKeyValueStorage): IntentStorage =>
  createKeyValueIntentStorage(`once-intents:${name}`, storage, 'AsyncStorage');
