import { createInMemoryEventStore } from '@once/event-store/in-memory';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIdempotencyEngine } from '../engine/index.js';
import type { ExecuteOutcome } from '../engine/index.js';
import { bindCommand, commandHandlers } from '../commands/index.js';
import { COUNTER_ROUTE, incrementCounter, incrementCounterHandler } from '../testing/index.js';
import { idempotencyFastifyPlugin } from './idempotency-plugin.js';
import type { IdempotencyProblem } from './idempotency-plugin.js';

class AppProblem extends Error {
  constructor(readonly problem: IdempotencyProblem) {
    super(problem.title);
  }
}

let app: FastifyInstance;
let outcomes: ExecuteOutcome['kind'][];

beforeEach(async () => {
  outcomes = [];
  app = Fastify();
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    Reflect.set(request, 'principal', { tenantId: 'tenant-1', actorId: 'actor-1' });
  });
  // The app's own renderer: the plugin's problems reach the root error handler as the app's error type.
  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof AppProblem) {
      return reply
        .code(error.problem.status)
        .type('application/problem+json')
        .send({ type: `/problems/${error.problem.type}`, reason: error.problem.reason ?? null });
    }
    return reply.code(500).send({ unexpected: true });
  });
  const engine = createIdempotencyEngine({ store: createInMemoryEventStore(), leaseMs: 30_000 });
  await app.register(idempotencyFastifyPlugin, {
    engine,
    handlers: commandHandlers([bindCommand(incrementCounter, incrementCounterHandler())]),
    onOutcome: async (_request, outcome) => {
      await Promise.resolve();
      outcomes.push(outcome.kind);
    },
    onProblem: (problem) => {
      throw new AppProblem(problem);
    },
  });
  app.post(COUNTER_ROUTE, app.idempotency.command({ command: incrementCounter }));
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
  it('hands a refused key header to onProblem, without calling onOutcome', async () => {
    const response = await post(undefined, { by: 1 });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ type: '/problems/idempotency-key-missing' });
    expect(outcomes).toEqual([]);
  });

  it('calls onOutcome with each outcome and renders a reused key through onProblem', async () => {
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
