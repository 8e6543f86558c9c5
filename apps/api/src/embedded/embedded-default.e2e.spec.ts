import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { findFreePort, readEmbeddedPostgresPassword } from '@once/postgres';
import { parseSecretsKeys } from '@once/webhooks';
import { demoMenu } from './demo-menu.js';
import { demoTenant } from './demo-tenant.js';
import { embeddedSecretsKeyFile } from './embedded-runtime.js';

// What a new user does: `npm start` with nothing configured, then paste the printed curl sequence.
const mainTs = fileURLToPath(new URL('../main.ts', import.meta.url));
const cleanUp: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const step of cleanUp.reverse()) await step();
});

/** `npm start` with nothing configured but the port, the data folder and what `settings` add. */
const startApi = (dataRoot: string, port: number, settings: Record<string, string> = {}) => {
  const {
    DATABASE_URL: _database,
    ONCE_GATEWAY_URL: _gateway,
    EVENTSTORE_URL: _eventStore,
    ONCE_SECRETS_KEY: _secretsKey,
    ONCE_DEMO: _demo,
    HOST: _host,
    ...inherited
  } = process.env;
  const env = {
    ...inherited,
    PORT: String(port),
    ONCE_DATA_DIR: join(dataRoot, 'postgres'),
    ONCE_LOG_LEVEL: 'warn',
    ...settings,
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
  const started = { child, exited, output: '' };
  child.stdout.on('data', (chunk: Buffer) => (started.output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (started.output += chunk.toString('utf8')));
  return started;
};

describe('the embedded default', () => {
  it('starts with nothing configured and prints a curl sequence that shows the replay', async () => {
    const dataRoot = await mkdtemp(join(tmpdir(), 'once-embedded-default-'));
    await chmod(dataRoot, 0o755);
    cleanUp.push(() => rm(dataRoot, { recursive: true, force: true }));
    const port = await findFreePort();
    const api = startApi(dataRoot, port);
    const { child, exited } = api;
    await expect
      .poll(() => api.output, { timeout: 90_000, interval: 200 })
      .toContain('curl -s $API/invoices/$INVOICE');

    expect(api.output).toContain(`Once API listening on http://127.0.0.1:${String(port)}`);
    const script = api.output.slice(api.output.indexOf('API=http'));
    const { stdout } = await promisify(execFile)('bash', ['-c', script], { timeout: 30_000 });
    expect(stdout.match(/^HTTP\/1\.1 201/gm)).toHaveLength(2);
    expect(stdout.match(/^idempotent-replayed: true/gim)).toHaveLength(1);
    expect(stdout).toContain('"status":"paid"');
    // The demo café's menu was set by its admin, through the menu's command, and the till's staff key reads it.
    const [alice, , olga, ada] = demoTenant.actors;
    const baseUrl = `http://127.0.0.1:${String(port)}`;
    const read = async <T>(path: string, apiKey: string): Promise<T> =>
      (await (
        await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${apiKey}` } })
      ).json()) as T;
    await expect
      .poll(async () =>
        (await read<{ items: { sku: string }[] }>('/menu', alice.apiKey)).items.map(({ sku }) => sku),
      )
      .toEqual(demoMenu.map(({ sku }) => sku));
    const seeded = await read<{ keys: { actorId: string }[] }>(
      '/ops/keys?key=demo-menu-espresso',
      olga.apiKey,
    );
    expect(seeded.keys.map(({ actorId }) => actorId)).toEqual([ada.actorId]);
    // Its server key was generated into the data folder, readable by its owner only.
    const keyFile = embeddedSecretsKeyFile(join(dataRoot, 'postgres'));
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect(parseSecretsKeys(await readFile(keyFile, 'utf8'))).toHaveLength(1);
    // Beside it, the database superuser's random password, likewise its owner's only.
    const passwordFile = join(dataRoot, 'postgres', 'once-superuser-password');
    expect((await stat(passwordFile)).mode & 0o777).toBe(0o600);
    expect(await readEmbeddedPostgresPassword(join(dataRoot, 'postgres'))).toMatch(/^[0-9a-f]{48}$/);

    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);

    // The same data, now on every interface and asking for the demo: the keys from the first start stop working.
    const publicApi = startApi(dataRoot, port, { HOST: '0.0.0.0', ONCE_DEMO: '1' });
    const invoice = `http://127.0.0.1:${String(port)}/invoices/0e1c0000-0000-4000-8000-000000000001`;
    const asAlice = () =>
      fetch(invoice, { headers: { authorization: `Bearer ${demoTenant.actors[0].apiKey}` } }).then(
        (response) => response.status,
        () => 0,
      );
    await expect.poll(asAlice, { timeout: 90_000, interval: 200 }).toBe(401);
    expect(publicApi.output).not.toContain('once_demo_');
    publicApi.child.kill('SIGTERM');
    const [publicCode] = await publicApi.exited;
    expect(publicCode).toBe(0);
  });
});
