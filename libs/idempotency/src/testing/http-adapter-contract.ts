import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { createInMemoryEventStore } from '@once/event-store/in-memory';
import type { EventStore } from '@once/event-store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bindCommand, commandHandlers, defineCommand } from '../commands/index.js';
import type { CommandDefinition, CommandHandlers } from '../commands/index.js';
import { createIdempotencyEngine, defineDecideHandler } from '../engine/index.js';
import type { IdempotencyEngine } from '../engine/index.js';
import { countIncrementsByKey, incrementCounter, incrementCounterHandler } from './counter-aggregate.js';
import { createFaultInjector } from './fault-injector.js';
import type { FaultInjector } from './fault-injector.js';

/** What an adapter's server is built from: the engine, the handlers, and the two command routes to serve. */
export interface AdapterServerParts {
  readonly engine: IdempotencyEngine;
  readonly handlers: CommandHandlers;
  /**
   * Serve `POST /counters/:id/increments` (`incrementCounter`) and `POST /failing/:id` (`failing`), with JSON bodies,
   * the scope `{ tenantId: 'tenant-1', actorId: <x-test-actor> }` when that header is present, none otherwise.
   */
  readonly commands: {
    readonly increment: CommandDefinition<unknown>;
    readonly failing: CommandDefinition<unknown>;
  };
}

/** A started server of an adapter: where it listens, and how to stop it. */
export interface AdapterServer {
  readonly url: string;
  close(): Promise<void>;
}

interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
  json(): unknown;
}

/** One request as a client sends it, over a real socket (several `Idempotency-Key` lines stay several). */
const send = (
  url: string,
  path: string,
  options: {
    key?: string | string[];
    actor?: string | null;
    body?: unknown;
    headers?: Record<string, string>;
  },
): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const outgoing = httpRequest(new URL(path, url), { method: 'POST' }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({
          status: incoming.statusCode ?? 0,
          headers: incoming.headers,
          body,
          json: () => JSON.parse(body.toString('utf8')) as unknown,
        });
      });
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.setHeader('content-type', 'application/json');
    if (options.actor !== null) outgoing.setHeader('x-test-actor', options.actor ?? 'actor-1');
    if (options.key !== undefined) outgoing.setHeader('idempotency-key', options.key);
    for (const [name, value] of Object.entries(options.headers ?? {})) outgoing.setHeader(name, value);
    outgoing.end(JSON.stringify(options.body ?? { by: 1 }));
  });

/**
 * What every HTTP adapter of the engine answers, over real sockets: the first request runs once and its replay is the
 * same bytes with `Idempotent-Replayed: true`; a missing or malformed key is 400, no scope 401, a key in flight 409
 * with `Retry-After`, a key reused with another body 422, a handler's defect 500 with nothing stored — each as
 * `application/problem+json` with its `Link`.
 *
 * @param name the adapter's name in the report.
 * @param start serves the parts' routes through the adapter.
 */
export const describeHttpAdapterContract = (
  name: string,
  start: (parts: AdapterServerParts) => Promise<AdapterServer>,
): void => {
  describe(`${name} answers keyed commands as every adapter does`, () => {
    let store: EventStore;
    let faults: FaultInjector;
    let server: AdapterServer;
    let handlerRuns: number;

    beforeEach(async () => {
      store = createInMemoryEventStore();
      faults = createFaultInjector();
      handlerRuns = 0;
      const counted = incrementCounterHandler();
      const increment = defineDecideHandler({
        streams: counted.streams,
        decide: (context, streams) => {
          handlerRuns += 1;
          return counted.decide(context, streams);
        },
      });
      const failing = defineCommand({ type: 'Failing', version: 1, fromInput: () => ({}) });
      const failingHandler = defineDecideHandler({
        streams: () => [],
        decide: () => {
          throw new Error('defect');
        },
      });
      server = await start({
        engine: createIdempotencyEngine({ store, faults: faults.hook, leaseMs: 30_000 }),
        handlers: commandHandlers([
          bindCommand(incrementCounter, increment),
          bindCommand(failing, failingHandler),
        ]),
        commands: { increment: incrementCounter, failing },
      });
    });
    afterEach(async () => {
      faults.releaseHangs();
      await server.close();
    });

    const increment = (options: Parameters<typeof send>[2] = {}) =>
      send(server.url, '/counters/c1/increments', options);

    it('runs the first request and replays it byte for byte with Idempotent-Replayed: true', async () => {
      const key = randomUUID();
      const first = await increment({ key });
      expect(first.status).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(first.headers['location']).toBe('/counters/c1');
      const replay = await increment({ key: `"${key}"` });
      expect(replay.status).toBe(201);
      expect(replay.body.equals(first.body)).toBe(true);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.headers['location']).toBe('/counters/c1');
      expect(replay.headers['content-type']).toBe(first.headers['content-type']);
      expect(handlerRuns).toBe(1);
    });

    it('never lets a client mark a response as replayed', async () => {
      const response = await increment({ key: randomUUID(), headers: { 'idempotent-replayed': 'true' } });
      expect(response.status).toBe(201);
      expect(response.headers['idempotent-replayed']).toBeUndefined();
    });

    it('answers a missing key with 400 idempotency-key-missing, a docs link, and runs nothing', async () => {
      const response = await increment({});
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.headers['link']).toBe(
        '<https://once.dev/problems/idempotency-key-missing>; rel="describedby"',
      );
      expect(response.json()).toMatchObject({ type: 'https://once.dev/problems/idempotency-key-missing' });
      expect(handlerRuns).toBe(0);
      expect((await store.readAll()).events).toEqual([]);
    });

    it.each([
      ['too-short', 'abc'],
      ['invalid-character', 'abc def ghi'],
      ['list', '"abcdefghij", "klmnopqrst"'],
      ['multiple-header-lines', ['abcdefghij', 'klmnopqrst']],
    ])('answers a %s key with 400 idempotency-key-invalid and writes nothing', async (reason, key) => {
      const response = await increment({ key });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({
        type: 'https://once.dev/problems/idempotency-key-invalid',
        reason,
      });
      expect((await store.readAll()).events).toEqual([]);
    });

    it('answers a key reused with another body with 422 and applies nothing more', async () => {
      const key = randomUUID();
      await increment({ key, body: { by: 1 } });
      const response = await increment({ key, body: { by: 2 } });
      expect(response.status).toBe(422);
      expect(response.json()).toMatchObject({ type: 'https://once.dev/problems/idempotency-key-reused' });
      expect([...(await countIncrementsByKey(store, 'c1')).values()]).toEqual([1]);
    });

    it('answers a duplicate of a request still running with 409 and Retry-After', async () => {
      const key = randomUUID();
      faults.arm('after-claim', 'hang');
      const running = increment({ key });
      for (let tries = 0; tries < 500 && faults.fired.length === 0; tries++)
        await new Promise((resolve) => setTimeout(resolve, 2));
      const duplicate = await increment({ key });
      expect(duplicate.status).toBe(409);
      expect(duplicate.headers['retry-after']).toBe('30');
      expect(duplicate.json()).toMatchObject({ type: 'https://once.dev/problems/idempotency-key-in-flight' });
      faults.releaseHangs();
      expect((await running).status).toBe(201);
    });

    it("never replays another actor's response, and refuses a request without a scope with 401", async () => {
      const key = randomUUID();
      await increment({ key, actor: 'actor-a' });
      const other = await increment({ key, actor: 'actor-b' });
      expect(other.status).toBe(201);
      expect(other.headers['idempotent-replayed']).toBeUndefined();
      expect(handlerRuns).toBe(2);
      const anonymous = await increment({ key: randomUUID(), actor: null });
      expect(anonymous.status).toBe(401);
      expect(anonymous.json()).toMatchObject({ type: 'https://once.dev/problems/unauthorized' });
      expect(handlerRuns).toBe(2);
    });

    it('answers a handler defect with a 500 problem and stores nothing', async () => {
      const response = await send(server.url, '/failing/x', { key: randomUUID(), body: {} });
      expect(response.status).toBe(500);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json()).toMatchObject({ type: 'https://once.dev/problems/internal', status: 500 });
      expect((await store.readAll()).events).toEqual([]);
    });
  });
};
