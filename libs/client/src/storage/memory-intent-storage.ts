import type { Intent } from '../intent/index.js';
import type { IntentStorage } from './intent-storage.js';

/**
 * Creates an in-memory {@link IntentStorage}: for tests and for pages that accept losing intents on reload.
 * Intents are copied in and out, as a durable adapter would serialise them.
 *
 * @example
 * const storage = createMemoryIntentStorage();
 */
export const createMemoryIntentStorage = (): IntentStorage => {
  const intents = new Map<string, Intent>();
  return {
    save: async (intent) => {
      intents.set(intent.key, structuredClone(intent));
    },
    load: async (key) => {
      const intent = intents.get(key);
      return intent === undefined ? undefined : structuredClone(intent);
    },
    remove: async (key) => {
      intents.delete(key);
    },
    list: async () => [...intents.values()].map((intent) => structuredClone(intent)),
  };
};
