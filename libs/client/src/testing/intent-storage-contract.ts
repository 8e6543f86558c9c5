import { describe, expect, it } from 'vitest';
import type { Intent } from '../intent/index.js';
import type { IntentStorage } from '../storage/index.js';

/** A storage under test, and a way to open the same backing store again (a reload or a restart). */
export interface StorageUnderTest {
  readonly storage: IntentStorage;
  readonly reopen: () => Promise<IntentStorage>;
}

let sequence = 0;

/**
 * Builds a distinct intent for storage tests.
 *
 * @param label ends up in the key and the body.
 */
export const sampleIntent = (label: string): Intent => {
  sequence += 1;
  return {
    key: `intent-${label}-${sequence}`,
    request: {
      method: 'POST',
      path: '/orders',
      headers: { 'content-type': 'application/json' },
      bodyText: JSON.stringify({ label, note: 'caf\u00e9 "quoted" \\ line\nbreak' }),
    },
    createdAt: 1_764_000_000_000 + sequence,
  };
};

/**
 * The behaviour every {@link IntentStorage} adapter shares, as a Vitest suite.
 *
 * @param name the adapter's name in the report.
 * @param open gives a fresh, empty storage each time.
 * @param durable whether a reopened storage must still hold what was saved.
 */
export const describeIntentStorageContract = (
  name: string,
  open: () => Promise<StorageUnderTest>,
  { durable }: { readonly durable: boolean },
): void => {
  describe(`${name} meets the IntentStorage contract`, () => {
    it('starts empty and loads nothing for an unknown key', async () => {
      const { storage } = await open();
      expect(await storage.list()).toEqual([]);
      expect(await storage.load('intent-unknown')).toBeUndefined();
    });

    it('gives back what it saved, in saving order', async () => {
      const { storage } = await open();
      const intents = ['a', 'b', 'c'].map(sampleIntent);
      for (const intent of intents) await storage.save(intent);
      expect(await storage.list()).toEqual(intents);
      expect(await storage.load(intents[1]?.key ?? '')).toEqual(intents[1]);
    });

    it('replaces an intent saved again under its key without moving it', async () => {
      const { storage } = await open();
      const [first, second] = [sampleIntent('first'), sampleIntent('second')];
      await storage.save(first);
      await storage.save(second);
      const changed: Intent = { ...first, createdAt: first.createdAt + 1 };
      await storage.save(changed);
      expect(await storage.list()).toEqual([changed, second]);
    });

    it('removes by key and ignores a key it does not hold', async () => {
      const { storage } = await open();
      const intents = ['x', 'y', 'z'].map(sampleIntent);
      for (const intent of intents) await storage.save(intent);
      await storage.remove(intents[1]?.key ?? '');
      await storage.remove('intent-never-saved');
      expect(await storage.list()).toEqual([intents[0], intents[2]]);
    });

    it('keeps every one of many concurrent saves', async () => {
      const { storage } = await open();
      const intents = Array.from({ length: 25 }, (_, index) => sampleIntent(`concurrent-${index}`));
      await Promise.all(intents.map((intent) => storage.save(intent)));
      expect((await storage.list()).map((intent) => intent.key).sort()).toEqual(
        intents.map((intent) => intent.key).sort(),
      );
    });

    if (durable) {
      it('still holds its intents, in order, when opened again', async () => {
        const { storage, reopen } = await open();
        const intents = ['r1', 'r2', 'r3'].map(sampleIntent);
        for (const intent of intents) await storage.save(intent);
        await storage.remove(intents[0]?.key ?? '');
        const reopened = await reopen();
        expect(await reopened.list()).toEqual(intents.slice(1));
      });
    }
  });
};
