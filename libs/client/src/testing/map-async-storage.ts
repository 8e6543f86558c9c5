import type { AsyncKeyValueStorage } from '../storage/index.js';

/**
 * An in-process stand-in for React Native's AsyncStorage: every call answers on a later turn of the event loop, as
 * the native module does, so operations that overlap really interleave. It can be told to refuse writes.
 */
export class MapAsyncStorage implements AsyncKeyValueStorage {
  readonly items = new Map<string, string>();
  refuseWrites = false;

  async getItem(key: string): Promise<string | null> {
    await laterTurn();
    return this.items.get(key) ?? null;
  }

  async setItem(key: string, value: string): Promise<void> {
    await laterTurn();
    if (this.refuseWrites) throw new Error('database or disk is full');
    this.items.set(key, value);
  }

  async removeItem(key: string): Promise<void> {
    await laterTurn();
    this.items.delete(key);
  }
}

const laterTurn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
