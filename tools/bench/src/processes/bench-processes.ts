import { execFile, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { findFreePort } from '@once/postgres';

/** The repository's root folder. */
export const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

/** Connections in each server's PostgreSQL pool: the api's default, given to every side alike. */
export const POOL_SIZE = 40;

/** A server process a benchmark started, answering on `url`. */
export interface BenchService {
  readonly url: string;
  readonly child: ChildProcess;
}

/** How a benchmark runs one of the project's processes. */
export interface ServiceSettings {
  readonly databaseUrl: string;
  /** Once's api: leave the projections to a separate projector process. */
  readonly externalProjector?: boolean;
  /** More settings for this process (e.g. a short key retention for the soak). */
  readonly environment?: Readonly<Record<string, string>>;
}

/** The server key every process of one benchmark run shares (`ONCE_SECRETS_KEY`). */
const benchSecretsKey = randomBytes(32).toString('base64');

/** Every environment variable a benchmark gives a process it starts, in one place so a rename is one edit. */
export const serviceEnvironment = (settings: ServiceSettings, port?: number): Record<string, string> => ({
  ...process.env,
  DATABASE_URL: settings.databaseUrl,
  ONCE_SECRETS_KEY: benchSecretsKey,
  HOST: '127.0.0.1',
  ...(port === undefined ? {} : { PORT: String(port) }),
  ONCE_LOG_LEVEL: 'warn',
  ONCE_GATEWAY_URL: 'http://127.0.0.1:9',
  ONCE_DATABASE_POOL_SIZE: String(POOL_SIZE),
  // The load comes from one address and one tenant on purpose; several apis run side by side.
  ONCE_RATE_LIMIT_ADDRESS_MAX: '0',
  ONCE_RATE_LIMIT_TENANT_MAX: '0',
  ONCE_METRICS_PORT: '0',
  ...(settings.externalProjector ? { ONCE_PROJECTOR: 'external' } : {}),
  ONCE_PROJECTOR_POLL_MS: '50',
  ...settings.environment,
});

/**
 * `node` running the build of a TypeScript entry of this repository (`apps/api/src/main.ts` runs
 * `apps/api/dist/main.js`), as a deployment runs it; `npm run bench` builds first. With `ONCE_BENCH_CPU_PROFILE_DIR`
 * set, each process writes a V8 CPU profile there when it exits (open it in Chrome DevTools or summarise it).
 */
const nodeScript = (script: string) => {
  const built = join(repositoryRoot, script.replace('/src/', '/dist/').replace(/\.ts$/, '.js'));
  if (!existsSync(built)) throw new Error(`${built} is missing: build first (npm run bench does)`);
  const profileDirectory = process.env['ONCE_BENCH_CPU_PROFILE_DIR'];
  const profile = profileDirectory ? ['--cpu-prof', '--cpu-prof-dir', profileDirectory] : [];
  return [process.execPath, [...profile, built]] as const;
};

/** Starts an HTTP server process on a free port and waits until `/health` answers. */
export const startService = async (script: string, settings: ServiceSettings): Promise<BenchService> => {
  const port = await findFreePort();
  const [command, args] = nodeScript(script);
  const child = spawn(command, args, {
    env: serviceEnvironment(settings, port),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${String(port)}`;
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${String(child.exitCode)}`);
    if (
      await fetch(`${url}/health`).then(
        (response) => response.ok,
        () => false,
      )
    )
      return { url, child };
    await sleep(100);
  }
  child.kill('SIGTERM');
  throw new Error(`${script} did not become healthy`);
};

/** Starts a process that serves no HTTP (the projector); resolves once it is spawned. */
export const startWorker = async (script: string, settings: ServiceSettings): Promise<ChildProcess> => {
  const [command, args] = nodeScript(script);
  const child = spawn(command, args, {
    env: serviceEnvironment(settings),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await once(child, 'spawn');
  return child;
};

/** Stops a process a benchmark started and waits for it to exit. */
export const stopProcess = async (child: ChildProcess): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
};

/** Once's api, its projector in-process unless told otherwise. */
export const startOnceApi = (settings: ServiceSettings): Promise<BenchService> =>
  startService('apps/api/src/main.ts', settings);

/** The same api with the plain engine (`tools/bench/src/http/plain-api.ts`): the commands without idempotency. */
export const startPlainApi = (settings: ServiceSettings): Promise<BenchService> =>
  startService('tools/bench/src/http/plain-api.ts', settings);

/** The article peer (tools/bench/src/article), on its own database. */
export const startArticlePeer = (settings: ServiceSettings): Promise<BenchService> =>
  startService('tools/bench/src/article/article-main.ts', settings);

/** Once's projector as its own process. */
export const startOnceProjector = (settings: ServiceSettings): Promise<ChildProcess> =>
  startWorker('apps/projector/src/main.ts', settings);

/** A new API key of Once's api, made by its CLI: a staff key of a new tenant unless told otherwise. */
export const createOnceApiKey = async (
  databaseUrl: string,
  options: { readonly role?: 'staff' | 'operator' | 'admin'; readonly tenantId?: string } = {},
): Promise<string> => {
  const [command, args] = nodeScript('apps/api/src/cli/once-keys.ts');
  const flags = [
    ...(options.role ? ['--role', options.role] : []),
    ...(options.tenantId ? ['--tenant', options.tenantId] : []),
  ];
  const { stdout } = await promisify(execFile)(command, [...args, 'create', ...flags], {
    env: serviceEnvironment({ databaseUrl }),
  });
  return (JSON.parse(stdout) as { apiKey: string }).apiKey;
};

/** A keyed JSON POST that must answer 201. */
export const postCreated = async (url: string, apiKey: string, key: string, body: unknown) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': key,
    },
    body: JSON.stringify(body),
  });
  if (response.status !== 201)
    throw new Error(`${url} answered ${String(response.status)}: ${await response.text()}`);
  return (await response.json()) as { id: string };
};

/** Issues `count` invoices of `total` EUR through Once's api, 16 at a time; returns their ids. */
export const issueOnceInvoices = async (
  apiUrl: string,
  apiKey: string,
  seed: { readonly count: number; readonly total: number },
): Promise<string[]> => {
  const invoiceIds: string[] = [];
  while (invoiceIds.length < seed.count) {
    const batch = await Promise.all(
      Array.from({ length: 16 }, () =>
        postCreated(`${apiUrl}/invoices`, apiKey, randomUUID(), { currency: 'EUR', total: seed.total }),
      ),
    );
    invoiceIds.push(...batch.map((invoice) => invoice.id));
  }
  return invoiceIds;
};

/** A new, empty database `name` in the server of `serverUrl`; answers its connection string. */
export const createDatabase = async (serverUrl: string, name: string): Promise<string> => {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
};
