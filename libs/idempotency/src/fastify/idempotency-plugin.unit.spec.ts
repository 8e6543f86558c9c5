import { randomUUID } from 'node:crypto';
import { createInMemoryEventStore } from '@once/event-store/in-memory';
import type { EventStore } from '@once/event-store';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bindCommand, commandHandlers, defineCommand } from '../commands/index.js';
import { createIdempotencyEngine, defineDecideHandler } from '../engine/index.js';
import {
  COUNTER_ROUTE,
  countIncrementsByKey,
  createFaultInjector,
  incrementCounter,
  incrementCounterHandler,
} from '../testing/index.js';
import type { FaultInjector } from '../testing/index.js';
import { commandRoute, idempotencyFastifyPlugin } from './idempotency-plugin.js';

let store: EventStore;
let app: FastifyInstance;
let faults: FaultInjector;
let handlerRuns: number;

const buildApp = async (): Promise<FastifyInstance> => {
  const instance = Fastify();
  instance.decorateRequest('principal', null);
  instance.addHook('onRequest', async (request) => {
    const actor = request.headers['x-test-actor'];
    if (typeof actor === 'string')
      Reflect.set(request, 'principal', { tenantId: 'tenant-1', actorId: actor });
  });
  const engine = createIdempotencyEngine({ store, faults: faults.hook, leaseMs: 30_000 });
  const counted = incrementCounterHandler();
  const handler = defineDecideHandler({
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
  await instance.register(idempotencyFastifyPlugin, {
    engine,
    handlers: commandHandlers([bindCommand(incrementCounter, handler), bindCommand(failing, failingHandler)]),
  });
  instance.route(commandRoute({ url: COUNTER_ROUTE, command: incrementCounter }));
  instance.command({ url: '/failing/:id', command: failing });
  return instance;
};

beforeEach(async () => {
  store = createInMemoryEventStore();
  faults = createFaultInjector();
  handlerRuns = 0;
  app = await buildApp();
});
afterEach(async () => {
  faults.releaseHangs();
  await app.close();
});

const post = (options: {
  key?: string | string[];
  body?: unknown;
  actor?: string;
  counter?: string;
  headers?: Record<string, string>;
}) =>
  app.inject({
    method: 'POST',
    url: `/counters/${options.counter ?? 'c1'}/increments`,
    headers: {
      'content-type': 'application/json',
      ...(options.actor === undefined ? { 'x-test-actor': 'actor-1' } : { 'x-test-actor': options.actor }),
      ...(options.key === undefined ? {} : { 'idempotency-key': options.key }),
      ...options.headers,
    },
    payload: JSON.stringify(options.body ?? { by: 1 }),
  });

describe('idempotency Fastify plugin', () => {
  it('runs the first request and replays it byte for byte with Idempotent-Replayed: true', async () => {
    const key = randomUUID();
    const first = await post({ key });
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(first.headers['location']).toBe('/counters/c1');
    expect(first.headers['x-not-allow-listed']).toBeUndefined();
    const replay = await post({ key: `"${key}"` });
    expect(replay.statusCode).toBe(201);
    expect(replay.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['location']).toBe('/counters/c1');
    expect(replay.headers['content-type']).toBe(first.headers['content-type']);
    expect(handlerRuns).toBe(1);
  });

  it('never lets a client mark a response as replayed', async () => {
    const response = await post({ key: randomUUID(), headers: { 'idempotent-replayed': 'true' } });
    expect(response.statusCode).toBe(201);
    expect(response.headers['idempotent-replayed']).toBeUndefined();
  });

  it('answers a missing key with 400 idempotency-key-missing, a docs link, and runs nothing', async () => {
    const response = await post({});
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.headers['link']).toBe(
      '<https://once.dev/problems/idempotency-key-missing>; rel="describedby"',
    );
    expect(response.json()).toMatchObject({
      type: 'https://once.dev/problems/idempotency-key-missing',
      status: 400,
      title: 'Idempotency-Key is missing',
    });
    expect(handlerRuns).toBe(0);
    expect((await store.readAll()).events).toEqual([]);
  });

  it.each([
    ['empty', ''],
    ['too-short', 'abc'],
    ['too-long', 'k'.repeat(256)],
    ['invalid-character', 'abc def ghi'],
    ['invalid-escape', '"abcdefgh\\n"'],
    ['unterminated-string', '"abcdefghij'],
    ['inner-list', '("abcdefghij")'],
    ['parameters', '"abcdefghij";a=1'],
    ['list', '"abcdefghij", "klmnopqrst"'],
    ['multiple-header-lines', ['abcdefghij', 'klmnopqrst']],
  ])('answers a %s key with 400 idempotency-key-invalid and writes nothing', async (reason, key) => {
    const response = await post({ key });
    expect(response.statusCode).toBe(400);
    expect(response.headers['link']).toMatch(/rel="describedby"/);
    expect(response.json()).toMatchObject({
      type: 'https://once.dev/problems/idempotency-key-invalid',
      reason,
    });
    expect(handlerRuns).toBe(0);
    expect((await store.readAll()).events).toEqual([]);
  });

  it('answers a key reused with a different body with 422 and applies nothing more', async () => {
    const key = randomUUID();
    await post({ key, body: { by: 1 } });
    const response = await post({ key, body: { by: 2 } });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({
      type: 'https://once.dev/problems/idempotency-key-reused',
      status: 422,
    });
    expect([...(await countIncrementsByKey(store, 'c1')).values()]).toEqual([1]);
  });

  it('answers a duplicate of a request still running with 409 and Retry-After', async () => {
    const key = randomUUID();
    faults.arm('after-claim', 'hang');
    const running = post({ key });
    for (let tries = 0; tries < 200 && faults.fired.length === 0; tries++)
      await new Promise((resolve) => setTimeout(resolve, 2));
    const duplicate = await post({ key });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.headers['retry-after']).toBe('30');
    expect(duplicate.json()).toMatchObject({ type: 'https://once.dev/problems/idempotency-key-in-flight' });
    faults.releaseHangs();
    expect((await running).statusCode).toBe(201);
  });

  it("never replays another actor's response", async () => {
    const key = randomUUID();
    await post({ key, actor: 'actor-a' });
    const other = await post({ key, actor: 'actor-b' });
    expect(other.statusCode).toBe(201);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(handlerRuns).toBe(2);
  });

  it('refuses an unauthenticated command with 401 and writes nothing', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/counters/c1/increments',
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      payload: '{"by":1}',
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ type: 'https://once.dev/problems/unauthorized' });
    expect((await store.readAll()).events).toEqual([]);
  });

  it('answers a handler defect with a 500 problem and stores nothing', async () => {
    const key = randomUUID();
    const response = await app.inject({
      method: 'POST',
      url: '/failing/x',
      headers: { 'content-type': 'application/json', 'idempotency-key': key, 'x-test-actor': 'actor-1' },
      payload: '{}',
    });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toMatchObject({ type: 'https://once.dev/problems/internal', status: 500 });
    expect((await store.readAll()).events).toEqual([]);
  });

  it("binds each route's handlers once, when the route is declared, never per request", async () => {
    const instance = Fastify();
    instance.decorateRequest('principal', null);
    instance.addHook('onRequest', async (request) => {
      Reflect.set(request, 'principal', { tenantId: 'tenant-1', actorId: 'actor-1' });
    });
    const bound = commandHandlers([bindCommand(incrementCounter, incrementCounterHandler())]);
    const lookups: string[] = [];
    await instance.register(idempotencyFastifyPlugin, {
      engine: createIdempotencyEngine({ store }),
      handlers: {
        handlerOf: (definition) => {
          lookups.push(definition.type);
          return bound.handlerOf(definition);
        },
        byType: bound.byType,
        upcast: bound.upcast,
      },
    });
    instance.route(commandRoute({ url: COUNTER_ROUTE, command: incrementCounter }));
    instance.command({ url: '/again/:id/increments', command: incrementCounter });
    const unbound = defineCommand({ type: 'Unbound', version: 1, fromInput: () => ({}) });
    expect(() => instance.command({ url: '/unbound', command: unbound })).toThrow(/Unbound/);
    await instance.ready();
    expect(lookups).toEqual(['IncrementCounter', 'IncrementCounter', 'Unbound']);
    for (const url of ['/counters/c1/increments', '/again/c1/increments']) {
      const response = await instance.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        payload: '{"by":1}',
      });
      expect(response.statusCode).toBe(201);
    }
    expect(lookups).toHaveLength(3);
    await instance.close();
  });
});
