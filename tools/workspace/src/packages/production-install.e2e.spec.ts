import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceRoot } from '../workspace-root.js';
import { runCommand } from './run-command.js';

// What the Docker image's runtime stage does, without Docker: the manifests alone, `npm ci --omit=dev`, then the
// build of apps/* and libs/*; the services must start from it and pass the health checks docker-compose runs.
const MINUTES = 60_000;
const testAndBenchmarkTools = [
  'vitest',
  'testcontainers',
  'fast-check',
  'playwright-core',
  'tsx',
  'typescript',
  'nx',
  'autocannon',
  '@event-driven-io/emmett-postgresql',
];

const secretsKey = randomBytes(32).toString('base64');
let runtime: string;
let database: TestDatabase;
const started: ChildProcessWithoutNullStreams[] = [];

const workspaceFolders = (groups: readonly string[]): string[] =>
  groups.flatMap((group) => readdirSync(join(workspaceRoot, group)).map((name) => `${group}/${name}`));

const copyRuntimeTree = async (): Promise<void> => {
  for (const file of ['package.json', 'package-lock.json'])
    await cp(join(workspaceRoot, file), join(runtime, file));
  for (const folder of workspaceFolders(['apps', 'libs', 'tools'])) {
    if (existsSync(join(workspaceRoot, folder, 'package.json'))) {
      await cp(join(workspaceRoot, folder, 'package.json'), join(runtime, folder, 'package.json'));
    }
  }
  await runCommand('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: runtime,
  });
  for (const folder of workspaceFolders(['apps', 'libs'])) {
    if (existsSync(join(workspaceRoot, folder, 'dist'))) {
      await cp(join(workspaceRoot, folder, 'dist'), join(runtime, folder, 'dist'), { recursive: true });
    }
  }
  await cp(
    join(workspaceRoot, 'tools/docker/healthcheck.mjs'),
    join(runtime, 'tools/docker/healthcheck.mjs'),
  );
};

/** Starts `node <entry>` in the runtime tree and resolves with its child once a line matches `ready`. */
const startService = async (
  entry: string,
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<RegExpExecArray> => {
  const child = spawn(process.execPath, [entry], {
    cwd: runtime,
    env: { PATH: process.env['PATH'], NODE_ENV: 'production', ...env },
  });
  started.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const scan = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = ready.exec(output);
      if (match) resolve(match);
    };
    child.stdout.on('data', scan);
    child.stderr.on('data', scan);
    child.once('exit', (code) => reject(new Error(`${entry} exited (${String(code)}):\n${output}`)));
  });
};

const healthCheck = (args: readonly string[], env: NodeJS.ProcessEnv = {}) =>
  runCommand(process.execPath, ['tools/docker/healthcheck.mjs', ...args], { cwd: runtime, env }).then(
    () => 'healthy',
    () => 'unhealthy',
  );

/** Asks again, as docker's `retries` does, until healthy or out of tries. */
const healthyWithin = async (
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  tries = 40,
): Promise<string> => {
  for (let attempt = 1; attempt < tries; attempt++) {
    if ((await healthCheck(args, env)) === 'healthy') return 'healthy';
    await sleep(250);
  }
  return healthCheck(args, env);
};

beforeAll(async () => {
  runtime = await mkdtemp(join(tmpdir(), 'once-runtime-'));
  await runCommand('npm', ['run', 'build', '--', '--output-style=static'], {
    cwd: workspaceRoot,
    env: { NX_DAEMON: 'false', NX_TUI: 'false', NX_NO_CLOUD: 'true' },
  });
  await copyRuntimeTree();
  database = await createTestDatabase();
}, 15 * MINUTES);

afterAll(async () => {
  for (const child of started) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
  }
  await database?.release();
  if (runtime) await rm(runtime, { recursive: true, force: true });
});

describe('the runtime install (npm ci --omit=dev) with the build', () => {
  it('holds no test or benchmark tool', async () => {
    const installed = testAndBenchmarkTools.filter((name) => existsSync(join(runtime, 'node_modules', name)));
    expect(installed).toEqual([]);
    const tree = await runCommand('npm', ['ls', '--omit=dev', '--all'], { cwd: join(runtime, 'apps/api') });
    for (const tool of testAndBenchmarkTools) expect(tree).not.toContain(` ${tool}@`);
  });

  it('runs the api and the projector from their build, healthy by the checks docker-compose runs', async () => {
    const [, url] = await startService(
      'apps/api/dist/main.js',
      {
        DATABASE_URL: database.connectionString,
        ONCE_SECRETS_KEY: secretsKey,
        ONCE_GATEWAY_URL: 'http://127.0.0.1:9',
        PORT: '0',
        ONCE_PROJECTOR: 'external',
      },
      /Server listening at (http:\/\/127\.0\.0\.1:\d+)/,
    );
    expect(await healthCheck(['http', `${url as string}/health`])).toBe('healthy');
    expect(await healthCheck(['projector'], { DATABASE_URL: database.connectionString })).toBe('unhealthy');

    await startService(
      'apps/projector/dist/main.js',
      { DATABASE_URL: database.connectionString, ONCE_SECRETS_KEY: secretsKey },
      /projector started/,
    );
    expect(await healthyWithin(['projector'], { DATABASE_URL: database.connectionString })).toBe('healthy');
    expect(await healthCheck(['http', 'http://127.0.0.1:9/health'])).toBe('unhealthy');
  });
});
