import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Intent } from '../intent/index.js';
import type { IntentStorage } from './intent-storage.js';
import { IntentStorageError, toStoredIntents } from './intent-storage.js';

const FORMAT_VERSION = 1;

const pathLocks = new Map<string, Promise<unknown>>();

const withPathLock = <T>(path: string, work: () => Promise<T>): Promise<T> => {
  const previous = pathLocks.get(path) ?? Promise.resolve();
  const next = previous.then(work, work);
  const settled = next.catch(() => undefined);
  pathLocks.set(path, settled);
  void settled.then(() => {
    if (pathLocks.get(path) === settled) pathLocks.delete(path);
  });
  return next;
};

const isMissingFile = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT';

const readIntents = async (path: string): Promise<Intent[]> => {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isMissingFile(error)) return [];
    throw new IntentStorageError('storage-unavailable', `Cannot read ${path}`, { cause: error });
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new IntentStorageError('storage-corrupted', `${path} is not JSON`, { cause: error });
  }
  if (
    typeof document !== 'object' ||
    document === null ||
    !('version' in document) ||
    document.version !== FORMAT_VERSION
  ) {
    throw new IntentStorageError(
      'storage-corrupted',
      `${path} is not an intent file of version ${FORMAT_VERSION}`,
    );
  }
  return toStoredIntents('intents' in document ? document.intents : undefined, path);
};

const syncDirectory = async (directory: string): Promise<void> => {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
};

const writeIntentsAtomically = async (path: string, intents: Intent[]): Promise<void> => {
  const directory = dirname(path);
  const temporary = `${path}.${randomUUID()}.tmp`;
  try {
    await mkdir(directory, { recursive: true });
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify({ version: FORMAT_VERSION, intents })}\n`, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
    await syncDirectory(directory);
  } catch (error) {
    await rm(temporary, { force: true });
    throw new IntentStorageError('storage-unavailable', `Cannot write ${path}`, { cause: error });
  }
};

/**
 * Creates a file-backed {@link IntentStorage} for Node. Every change rewrites the whole file the crash-safe way:
 * write a temporary file, fsync it, rename it over the old one, fsync the directory. A crash leaves either the old
 * or the new file, never a torn one. Changes through any storage on the same path in this process are serialised;
 * one process owns a file.
 *
 * @param path the JSON file; created (with its directory) on the first save.
 * @example
 * import { createFileIntentStorage } from '@once/client/node';
 * const storage = createFileIntentStorage('/var/lib/pos/intents.json');
 */
export const createFileIntentStorage = (path: string): IntentStorage => {
  const file = resolve(path);
  const change = (apply: (intents: Intent[]) => Intent[] | undefined): Promise<void> =>
    withPathLock(file, async () => {
      const changed = apply(await readIntents(file));
      if (changed !== undefined) await writeIntentsAtomically(file, changed);
    });

  return {
    save: (intent) =>
      change((intents) => {
        const index = intents.findIndex((stored) => stored.key === intent.key);
        if (index === -1) return [...intents, intent];
        return intents.map((stored, position) => (position === index ? intent : stored));
      }),
    load: (key) =>
      withPathLock(file, async () => (await readIntents(file)).find((stored) => stored.key === key)),
    remove: (key) =>
      change((intents) => {
        const kept = intents.filter((stored) => stored.key !== key);
        return kept.length === intents.length ? undefined : kept;
      }),
    list: () => withPathLock(file, () => readIntents(file)),
  };
};
