import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeIntentStorageContract, sampleIntent } from '../testing/intent-storage-contract.js';
import { createFileIntentStorage } from './file-intent-storage.js';

const root = await mkdtemp(join(tmpdir(), 'once-client-file-storage-'));
afterAll(() => rm(root, { recursive: true, force: true }));

let fileNumber = 0;
const freshPath = () => join(root, `queue-${++fileNumber}`, 'intents.json');

describeIntentStorageContract(
  'file storage',
  async () => {
    const path = freshPath();
    return { storage: createFileIntentStorage(path), reopen: async () => createFileIntentStorage(path) };
  },
  { durable: true },
);

describe('file storage on disk', () => {
  it('writes a versioned JSON file readable only by its owner and leaves no temporary files', async () => {
    const path = freshPath();
    const storage = createFileIntentStorage(path);
    const intents = ['one', 'two'].map(sampleIntent);
    await Promise.all(intents.map((intent) => storage.save(intent)));
    await storage.remove(intents[0]?.key ?? '');

    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ version: 1, intents: [intents[1]] });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(path, '..'))).toEqual(['intents.json']);
  });

  it('serialises two storages over the same file in one process', async () => {
    const path = freshPath();
    const first = createFileIntentStorage(path);
    const second = createFileIntentStorage(path);
    const intents = Array.from({ length: 10 }, (_, index) => sampleIntent(`shared-${index}`));
    await Promise.all(intents.map((intent, index) => (index % 2 === 0 ? first : second).save(intent)));
    expect(await first.list()).toHaveLength(10);
  });

  it('ignores a temporary file a crash left behind and refuses a file it cannot read', async () => {
    const path = freshPath();
    const storage = createFileIntentStorage(path);
    const kept = sampleIntent('kept');
    await storage.save(kept);
    await writeFile(`${path}.crashed.tmp`, '{"version":1,"intents":[{"torn');
    expect(await createFileIntentStorage(path).list()).toEqual([kept]);

    await writeFile(path, '{"version":1,"intents":[{"torn');
    await expect(storage.list()).rejects.toMatchObject({ code: 'storage-corrupted' });
    await writeFile(path, '{"version":2,"intents":[]}');
    await expect(storage.list()).rejects.toMatchObject({ code: 'storage-corrupted' });
  });
});
