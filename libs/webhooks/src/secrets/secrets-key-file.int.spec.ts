import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readOrCreateSecretsKeyFile } from './secrets-key-file.js';
import { InvalidSecretsKeyError, parseSecretsKeys } from './secrets-keyring.js';

const directory = await mkdtemp(join(tmpdir(), 'once-secrets-key-'));
afterAll(() => rm(directory, { recursive: true, force: true }));

describe('the secrets key file', () => {
  it('writes a new key readable by its owner only, then reads the same key back', async () => {
    const path = join(directory, 'nested', 'once-secrets.key');
    const key = await readOrCreateSecretsKeyFile(path);
    expect(parseSecretsKeys(key)).toHaveLength(1);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readOrCreateSecretsKeyFile(path)).toBe(key);
    expect((await readFile(path, 'utf8')).trim()).toBe(key);
  });

  it('refuses a file that holds no key', async () => {
    const path = join(directory, 'broken.key');
    await writeFile(path, 'not a key\n');
    await expect(readOrCreateSecretsKeyFile(path)).rejects.toThrow(InvalidSecretsKeyError);
  });
});
