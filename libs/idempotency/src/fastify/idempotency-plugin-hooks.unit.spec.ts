import { createInMemoryEventStore } from '@once/event-store/in-memory';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIdempotencyEngine, defineDecideHandler } from '../engine/index.js';
import type { ExecuteOutcome } from '../engine/index.js';
import { bindCommand, commandHandlers, defineCommand } from '../commands/index.js';
import { idempotencyProblems, Problem } from '../problems/index.js';
import { COUNTER_ROUTE, incrementCounter, incrementCounterHandler } from '../testing/index.js';
import { idempotencyFastifyPlugin } from './idempotency-plugin.js';

// The app's catalogue: the library's problems documented under the app's own address.
const appProblems = idempotencyProblems.extend({}, { base: '/problems/' });
const failing = defineCommand({ type: 'Failing', version: 1, fromInput: () => ({}) });
const failingHandler = defineDecideHandler({
  streams: () => [],
  decide: () => {
    throw new Error('defect');
  },
});

let app: FastifyInstance;
let outcomes: ExecuteOutcome['kind'][];
let unexpected: unknown[];

beforeEach(async () => {
  outcomes = [];
  unexpected = [];
  app = Fastify();
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    Reflect.set(request, 'principal', { tenantId: 'tenant-1', actorId: 'actor-1' });
  });
  // The app's one error handler answers the plugin's problems through the app's catalogue.
  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof Problem && appProblems.has(error.type)) {
      const { status, headers, body } = appProblems.answer(error);
      return reply.code(status).headers(headers).type('application/problem+json').send(body);
    }
    unexpected.push(error);
    return reply.code(500).send({ unexpected: true });
  });
  const engine = createIdempotencyEngine({ store: createInMemoryEventStore(), leaseMs: 30_000 });
  await app.register(idempotencyFastifyPlugin, {
    engine,
    handlers: commandHandlers([
      bindCommand(incrementCounter, incrementCounterHandler()),
      bindCommand(failing, failingHandler),
    ]),
    onOutcome: async (_request, outcome) => {
      await Promise.resolve();
      outcomes.push(outcome.kind);
    },
    problems: appProblems,
    throwProblems: true,
  });
  app.post(COUNTER_ROUTE, app.idempotency.command({ command: incrementCounter }));
  app.command({ url: '/failing/:id', command: failing });
});
afterEach(async () => {
  await app.close();
});

const post = (key: string | undefined, body: unknown) =>
  app.inject({
    method: 'POST',
    url: '/counters/c1/increments',
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
    payload: JSON.stringify(body),
  });

describe('idempotency plugin hooks', () => {
  it("throws a refused key header to the app's error handler, without calling onOutcome", async () => {
    const response = await post(undefined, { by: 1 });
    expect(response.statusCode).toBe(400);
    expect(response.headers['link']).toBe('</problems/idempotency-key-missing>; rel="describedby"');
    expect(response.json()).toEqual({
      type: '/problems/idempotency-key-missing',
      title: 'Idempotency-Key is missing',
      status: 400,
      detail: 'Idempotency-Key: missing',
      reason: 'missing',
    });
    expect(outcomes).toEqual([]);
  });

  it("throws a failed command's own error to the app's error handler", async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/failing/x',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'key-bbbbbbbb' },
      payload: '{}',
    });
    expect(response.statusCode).toBe(500);
    expect(unexpected).toHaveLength(1);
    expect(unexpected[0]).toMatchObject({ message: 'defect' });
  });

  it('refuses a catalogue that lacks one of its problems', async () => {
    const other = Fastify();
    const engine = createIdempotencyEngine({ store: createInMemoryEventStore() });
    await expect(
      other
        .register(idempotencyFastifyPlugin, {
          engine,
          handlers: commandHandlers([]),
          problems: {
            has: (type) => type !== 'idempotency-key-reused',
            answer: appProblems.answer.bind(appProblems),
          },
        })
        .ready(),
    ).rejects.toThrow(/idempotency-key-reused/);
    await other.close();
  });

  it('calls onOutcome with each outcome and answers a reused key through the app', async () => {
    const first = await post('key-aaaaaaaa', { by: 1 });
    const replay = await post('key-aaaaaaaa', { by: 1 });
    const reused = await post('key-aaaaaaaa', { by: 2 });
    expect(first.statusCode).toBeLessThan(300);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
    expect(reused.statusCode).toBe(422);
    expect(reused.json()).toMatchObject({ type: '/problems/idempotency-key-reused' });
    expect(outcomes).toEqual(['first', 'replay', 'reused']);
  });
});
