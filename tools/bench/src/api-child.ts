import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { findFreePort } from '@once/postgres';

/** The repository root. */
export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** How to run one of the repository's TypeScript entry points with node. */
export const node = (script: string) =>
  [process.execPath, ['--conditions=@once/source', '--import', 'tsx', join(root, script)]] as const;

/** An api process a benchmark started. */
export interface ApiChild {
  readonly url: string;
  readonly child: ChildProcess;
}

/**
 * Settings every benchmarked api gets: no rate limits (the load comes from one address and one tenant on
 * purpose) and its metrics on a free port (several apis run side by side).
 */
export const benchApiEnv = { ONCE_RATE_LIMIT_ADDRESS_MAX: '0', ONCE_METRICS_PORT: '0' } as const;

/**
 * Starts `apps/api` (or another api entry point, such as the bench's plain api) on a free loopback port with `env` and
 * waits until it is healthy.
 *
 * @example
 * const api = await startApi({ DATABASE_URL: server.connectionString, GATEWAY_URL: 'http://127.0.0.1:9' });
 */
export const startApi = async (
  env: Record<string, string>,
  script = 'apps/api/src/main.ts',
): Promise<ApiChild> => {
  const port = await findFreePort();
  const [command, args] = node(script);
  const child = spawn(command, args, {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...benchApiEnv, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${String(port)}`;
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`the api exited with ${String(child.exitCode)}`);
    if (
      await fetch(`${url}/health`).then(
        (response) => response.ok,
        () => false,
      )
    )
      return { url, child };
    await sleep(100);
  }
  throw new Error('the api did not become healthy');
};

/** Stops an api process (SIGTERM) and waits for it to exit. */
export const stopApi = async ({ child }: ApiChild): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
};

/** A new API key (new tenant and actor) in the database, through the keys CLI. */
export const createApiKey = async (databaseUrl: string): Promise<string> => {
  const [command, args] = node('apps/api/src/cli/once-keys.ts');
  const { stdout } = await promisify(execFile)(command, [...args, 'create'], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });
  return (JSON.parse(stdout) as { apiKey: string }).apiKey;
};
