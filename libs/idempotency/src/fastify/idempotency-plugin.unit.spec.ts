import { randomUUID } from 'node:crypto';
import { createInMemoryEventStore } from '@once/event-store/in-memory';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { bindCommand, commandHandlers, defineCommand } from '../commands/index.js';
import { createIdempotencyEngine } from '../engine/index.js';
import { describeHttpAdapterContract } from '../testing/http-adapter-contract.js';
import { COUNTER_ROUTE, incrementCounter, incrementCounterHandler } from '../testing/index.js';
import { commandRoute, idempotencyFastifyPlugin } from './idempotency-plugin.js';

describeHttpAdapterContract('the Fastify plugin', async ({ engine, handlers, commands }) => {
  const app = Fastify();
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    const actor = request.headers['x-test-actor'];
    if (typeof actor === 'string')
      Reflect.set(request, 'principal', { tenantId: 'tenant-1', actorId: actor });
  });
  await app.register(idempotencyFastifyPlugin, { engine, handlers });
  app.route(commandRoute({ url: COUNTER_ROUTE, command: commands.increment }));
  app.command({ url: '/failing/:id', command: commands.failing });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => app.close() };
});

describe('idempotency Fastify plugin', () => {
  it('answers every malformed key with 400 idempotency-key-invalid and its reason', async () => {
    const store = createInMemoryEventStore();
    const app = Fastify();
    app.addHook('onRequest', async (request) => {
      Reflect.set(request, 'principal', { tenantId: 'tenant-1', actorId: 'actor-1' });
    });
    await app.register(idempotencyFastifyPlugin, {
      engine: createIdempotencyEngine({ store }),
      handlers: commandHandlers([bindCommand(incrementCounter, incrementCounterHandler())]),
    });
    app.command({ url: COUNTER_ROUTE, command: incrementCounter });
    for (const [reason, key] of [
      ['empty', ''],
      ['too-long', 'k'.repeat(256)],
      ['invalid-escape', '"abcdefgh\\n"'],
      ['unterminated-string', '"abcdefghij'],
      ['inner-list', '("abcdefghij")'],
      ['parameters', '"abcdefghij";a=1'],
    ] as const) {
      const response = await app.inject({
        method: 'POST',
        url: '/counters/c1/increments',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        payload: '{"by":1}',
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        type: 'https://once.dev/problems/idempotency-key-invalid',
        reason,
      });
    }
    expect((await store.readAll()).events).toEqual([]);
    await app.close();
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
      engine: createIdempotencyEngine({ store: createInMemoryEventStore() }),
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
