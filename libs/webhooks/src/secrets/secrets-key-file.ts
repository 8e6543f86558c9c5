import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { generateSecretsKey, parseSecretsKeys } from './secrets-keyring.js';

/**
 * The server key kept in a file (the embedded default's, beside its data): read when the file exists, else a new key
 * written to it, readable by its owner only. The text is what `ONCE_SECRETS_KEY` takes.
 *
 * @throws InvalidSecretsKeyError when the file holds something else.
 * @example
 * const keyring = createSecretsKeyring(parseSecretsKeys(await readOrCreateSecretsKeyFile('.once/postgres/once-secrets.key')));
 */
export const readOrCreateSecretsKeyFile = async (path: string): Promise<string> => {
  const existing = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (existing !== undefined) {
    parseSecretsKeys(existing);
    return existing.trim();
  }
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const key = generateSecretsKey();
  // `wx`: two processes starting at once never overwrite each other's key; the loser reads the winner's.
  const written = await writeFile(path, `${key}\n`, { flag: 'wx', mode: 0o600 }).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') return false;
      throw error;
    },
  );
  return written ? key : readOrCreateSecretsKeyFile(path);
};
