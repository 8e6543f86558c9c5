import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { findFreePort } from '@once/postgres';
import { parseSecretsKeys } from '@once/webhooks';
import { embeddedSecretsKeyFile } from './embedded-runtime.js';

// What a new user does: `npm start` with nothing configured, then paste the printed curl sequence.
const mainTs = fileURLToPath(new URL('../main.ts', import.meta.url));
const cleanUp: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const step of cleanUp.reverse()) await step();
});

describe('the embedded default', () => {
  it('starts with nothing configured and prints a curl sequence that shows the replay', async () => {
    const dataRoot = await mkdtemp(join(tmpdir(), 'once-embedded-default-'));
    await chmod(dataRoot, 0o755);
    cleanUp.push(() => rm(dataRoot, { recursive: true, force: true }));
    const port = await findFreePort();
    const {
      DATABASE_URL: _database,
      ONCE_GATEWAY_URL: _gateway,
      EVENTSTORE_URL: _eventStore,
      ONCE_SECRETS_KEY: _secretsKey,
      ...inherited
    } = process.env;
    const env = {
      ...inherited,
      PORT: String(port),
      ONCE_DATA_DIR: join(dataRoot, 'postgres'),
      ONCE_LOG_LEVEL: 'warn',
    };
    const child = spawn(process.execPath, ['--conditions=@once/source', '--import', 'tsx', mainTs], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit');
    cleanUp.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    await expect
      .poll(() => output, { timeout: 90_000, interval: 200 })
      .toContain('curl -s $API/invoices/$INVOICE');

    expect(output).toContain(`Once API listening on http://127.0.0.1:${String(port)}`);
    const script = output.slice(output.indexOf('API=http'));
    const { stdout } = await promisify(execFile)('bash', ['-c', script], { timeout: 30_000 });
    expect(stdout.match(/^HTTP\/1\.1 201/gm)).toHaveLength(2);
    expect(stdout.match(/^idempotent-replayed: true/gim)).toHaveLength(1);
    expect(stdout).toContain('"status":"paid"');
    // Its server key was generated into the data folder, readable by its owner only.
    const keyFile = embeddedSecretsKeyFile(join(dataRoot, 'postgres'));
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect(parseSecretsKeys(await readFile(keyFile, 'utf8'))).toHaveLength(1);

    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);
  });
});
