import { describe, expect, it } from 'vitest';
import { describeIntentStorageContract, sampleIntent } from '../testing/intent-storage-contract.js';
import { MapAsyncStorage } from '../testing/map-async-storage.js';
import { createAsyncStorageIntentStorage } from './index.js';

let storageNumber = 0;
describeIntentStorageContract(
  'AsyncStorage storage over an in-process AsyncStorage',
  async () => {
    const area = new MapAsyncStorage();
    const name = `contract-${++storageNumber}`;
    return {
      storage: createAsyncStorageIntentStorage(name, area),
      reopen: async () => createAsyncStorageIntentStorage(name, area),
    };
  },
  { durable: true },
);

describe('AsyncStorage storage', () => {
  it('keeps every intent of saves that overlap, in the order they were made', async () => {
    const storage = createAsyncStorageIntentStorage('overlap', new MapAsyncStorage());
    const intents = Array.from({ length: 10 }, (_, index) => sampleIntent(`overlap-${String(index)}`));
    await Promise.all(intents.map((intent) => storage.save(intent)));
    expect((await storage.list()).map((intent) => intent.key)).toEqual(intents.map((intent) => intent.key));
  });

  it('removes while saving without bringing a removed intent back', async () => {
    const storage = createAsyncStorageIntentStorage('remove-while-saving', new MapAsyncStorage());
    const first = sampleIntent('first');
    const second = sampleIntent('second');
    await storage.save(first);
    await Promise.all([storage.remove(first.key), storage.save(second)]);
    expect((await storage.list()).map((intent) => intent.key)).toEqual([second.key]);
  });

  it('reports an unreadable item instead of dropping it, and a refused write as storage-unavailable', async () => {
    const area = new MapAsyncStorage();
    area.items.set('once-intents:broken', '{"not":"a list"');
    await expect(createAsyncStorageIntentStorage('broken', area).list()).rejects.toMatchObject({
      code: 'storage-corrupted',
    });
    area.refuseWrites = true;
    await expect(
      createAsyncStorageIntentStorage('full', area).save(sampleIntent('full')),
    ).rejects.toMatchObject({ code: 'storage-unavailable' });
  });

  it('goes on after a failed operation', async () => {
    const area = new MapAsyncStorage();
    const storage = createAsyncStorageIntentStorage('recovers', area);
    area.refuseWrites = true;
    await expect(storage.save(sampleIntent('refused'))).rejects.toMatchObject({
      code: 'storage-unavailable',
    });
    area.refuseWrites = false;
    const kept = sampleIntent('kept');
    await storage.save(kept);
    expect(await storage.load(kept.key)).toEqual(kept);
  });
});
