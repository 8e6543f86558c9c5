import { describe, expect, it } from 'vitest';
import { describeIntentStorageContract, sampleIntent } from '../testing/intent-storage-contract.js';
import { MapWebStorage } from '../testing/map-web-storage.js';
import {
  createLocalStorageIntentStorage,
  createMemoryIntentStorage,
  IntentStorageError,
  openBrowserIntentStorage,
} from './index.js';

describeIntentStorageContract(
  'memory storage',
  async () => {
    const storage = createMemoryIntentStorage();
    return { storage, reopen: async () => storage };
  },
  { durable: false },
);

let storageNumber = 0;
describeIntentStorageContract(
  'localStorage storage over an in-process Storage',
  async () => {
    const area = new MapWebStorage();
    const name = `contract-${++storageNumber}`;
    return {
      storage: createLocalStorageIntentStorage(name, area),
      reopen: async () => createLocalStorageIntentStorage(name, area),
    };
  },
  { durable: true },
);

describe('localStorage storage failures', () => {
  it('reports an unreadable item instead of dropping it', async () => {
    const area = new MapWebStorage();
    area.setItem('once-intents:broken', '{"not":"a list"');
    const storage = createLocalStorageIntentStorage('broken', area);
    await expect(storage.list()).rejects.toMatchObject({ code: 'storage-corrupted' });
    area.setItem('once-intents:broken', '[{"key":1}]');
    await expect(storage.list()).rejects.toBeInstanceOf(IntentStorageError);
  });

  it('reports a refused write as storage-unavailable', async () => {
    const area = new MapWebStorage();
    area.refuseWrites = true;
    const storage = createLocalStorageIntentStorage('full', area);
    await expect(storage.save(sampleIntent('full'))).rejects.toMatchObject({ code: 'storage-unavailable' });
  });

  it('in Node, without IndexedDB, opens on the given localStorage and refuses when there is none', async () => {
    const area = new MapWebStorage();
    const storage = await openBrowserIntentStorage('node-fallback', { localStorage: area });
    expect(storage.backend).toBe('localstorage');
    await storage.save(sampleIntent('fallback'));
    expect(area.getItem('once-intents:node-fallback')).toContain('fallback');
    await expect(
      openBrowserIntentStorage('none', { indexedDB: null, localStorage: null }),
    ).rejects.toMatchObject({
      code: 'storage-unavailable',
    });
  });
});
