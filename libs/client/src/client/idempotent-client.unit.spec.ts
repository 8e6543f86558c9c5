import { describe, expect, it, vi } from 'vitest';
import { backoffCeiling, DEFAULT_RETRY_POLICY } from '../retry/index.js';
import { createMemoryIntentStorage } from '../storage/index.js';
import { createIdempotentClient } from './index.js';
import type { IdempotentClientOptions } from './index.js';

type Step = Response | Error | 'hang';

/** A virtual clock: sleeping moves it forward instead of waiting. */
const virtualTime = () => {
  let current = Date.parse('2026-11-29T12:00:00Z');
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => current,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      current += ms;
    },
  };
};

/** An in-process stand-in for the network that answers from a script and records what it was sent. */
const scriptedFetch = (steps: Step[]) => {
  const seen: Array<{ idempotencyKey: string | null; body: string | null; authorization: string | null }> =
    [];
  const fetch: typeof globalThis.fetch = async (_input, init) => {
    const headers = new Headers(init?.headers);
    seen.push({
      idempotencyKey: headers.get('idempotency-key'),
      body: typeof init?.body === 'string' ? init.body : null,
      authorization: headers.get('authorization'),
    });
    const step = steps.shift() ?? new Error('script exhausted');
    if (step === 'hang') {
      return new Promise<Response>((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
      );
    }
    if (step instanceof Error) throw step;
    return step;
  };
  return { fetch, seen };
};

const problem = (status: number, type: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ type, title: type, status }), {
    status,
    headers: { 'content-type': 'application/problem+json', ...headers },
  });

const setup = (steps: Step[], options: Partial<IdempotentClientOptions> = {}) => {
  const time = virtualTime();
  const network = scriptedFetch(steps);
  const storage = createMemoryIntentStorage();
  const client = createIdempotentClient({
    storage,
    baseUrl: 'http://api.test',
    fetch: network.fetch,
    now: time.now,
    sleep: time.sleep,
    random: () => 0.5,
    ...options,
  });
  return { client, storage, time, network };
};

const payment = {
  method: 'POST',
  path: '/invoices/inv-1/payments',
  body: { amount: 500, method: 'cash' },
} as const;

describe('createIdempotentClient', () => {
  it('stores the intent before the first attempt and sends every attempt with its one quoted key', async () => {
    const { client, storage, time, network } = setup([
      problem(503, '/problems/unavailable', { 'retry-after': '2' }),
      problem(409, '/problems/idempotency-key-in-flight', { 'retry-after': '1' }),
      new TypeError('fetch failed'),
      new Response('{"paymentId":"p-1"}', {
        status: 201,
        headers: { 'content-type': 'application/json', 'idempotent-replayed': 'true' },
      }),
    ]);
    const intent = await client.createIntent(payment);
    expect(await storage.load(intent.key)).toEqual(intent);

    const outcome = await client.submit(intent);

    expect(outcome).toMatchObject({
      kind: 'succeeded',
      status: 201,
      body: { paymentId: 'p-1' },
      replayed: true,
      attempts: 4,
    });
    expect(network.seen.map((attempt) => attempt.idempotencyKey)).toEqual(Array(4).fill(`"${intent.key}"`));
    expect(new Set(network.seen.map((attempt) => attempt.body))).toEqual(
      new Set(['{"amount":500,"method":"cash"}']),
    );
    expect(time.sleeps).toEqual([2_000, 1_000, 0.5 * backoffCeiling(DEFAULT_RETRY_POLICY, 2)]);
    expect(await storage.list()).toEqual([]);
  });

  it('asks for credentials before every attempt and never stores them', async () => {
    let token = 0;
    const { client, storage, network } = setup([problem(503, '/problems/unavailable'), new Response('ok')], {
      headers: () => ({ authorization: `Bearer t${++token}` }),
    });
    const intent = await client.createIntent(payment);
    expect(JSON.stringify(await storage.list())).not.toContain('Bearer');
    await client.submit(intent);
    expect(network.seen.map((attempt) => attempt.authorization)).toEqual(['Bearer t1', 'Bearer t2']);
    await expect(client.createIntent({ ...payment, headers: { Authorization: 'Bearer x' } })).rejects.toThrow(
      TypeError,
    );
  });

  it('gives up after the retry limit and keeps the intent for a later submit under the same key', async () => {
    const steps = Array.from({ length: 3 }, () => problem(500, '/problems/internal'));
    const { client, storage, network } = setup(steps, { retry: { maxRetries: 2 } });
    const intent = await client.createIntent(payment);

    const outcome = await client.submit(intent);

    expect(outcome).toMatchObject({
      kind: 'gave-up',
      reason: 'retries-exhausted',
      attempts: 3,
      lastFailure: { kind: 'status', status: 500 },
    });
    expect(network.seen).toHaveLength(3);
    expect(await client.pendingIntents()).toEqual([intent]);
    expect(await storage.load(intent.key)).toEqual(intent);
  });

  it('gives up at the overall deadline instead of sleeping past it', async () => {
    const steps = Array.from({ length: 50 }, () =>
      problem(503, '/problems/unavailable', { 'retry-after': '4' }),
    );
    const { client, time } = setup(steps, { retry: { deadlineMs: 15_000, maxRetries: 40 } });
    const started = time.now();
    const outcome = await client.submit(await client.createIntent(payment));
    expect(outcome).toMatchObject({ kind: 'gave-up', reason: 'deadline', attempts: 4 });
    expect(time.now() - started).toBeLessThanOrEqual(15_000);
  });

  it('times an attempt out with an AbortSignal and retries it', async () => {
    const { client } = setup(['hang', new Response('ok', { status: 200 })], {
      retry: { attemptTimeoutMs: 20 },
    });
    const outcome = await client.submit(await client.createIntent(payment));
    expect(outcome).toMatchObject({ kind: 'succeeded', attempts: 2, body: 'ok' });
  });

  it('reports a timeout as the last failure when the server never answers', async () => {
    const { client } = setup(['hang', 'hang'], { retry: { attemptTimeoutMs: 20, maxRetries: 1 } });
    const outcome = await client.submit(await client.createIntent(payment));
    expect(outcome).toMatchObject({ kind: 'gave-up', lastFailure: { kind: 'timeout', timeoutMs: 20 } });
  });

  it('times out where the runtime has no DOMException, as on React Native', async () => {
    vi.stubGlobal('DOMException', undefined);
    try {
      let reason: unknown;
      const fetch: typeof globalThis.fetch = (_input, init) =>
        new Promise<Response>((_resolve, reject) =>
          init?.signal?.addEventListener('abort', () => {
            reason = init.signal?.reason;
            reject(reason);
          }),
        );
      const client = createIdempotentClient({
        baseUrl: 'http://api.test',
        fetch,
        storage: createMemoryIntentStorage(),
        retry: { attemptTimeoutMs: 20, maxRetries: 0 },
      });
      const outcome = await client.submit(await client.createIntent(payment));
      expect(outcome).toMatchObject({ kind: 'gave-up', lastFailure: { kind: 'timeout' } });
      expect(reason).toMatchObject({ name: 'TimeoutError' });
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('stops when the caller aborts, keeping the intent', async () => {
    const { client, storage } = setup(['hang']);
    const intent = await client.createIntent(payment);
    const controller = new AbortController();
    const pending = client.submit(intent, { signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ kind: 'gave-up', reason: 'aborted', attempts: 1 });
    expect(await storage.load(intent.key)).toEqual(intent);
  });

  it('returns a definitive rejection after one attempt, removed unless new credentials could change it', async () => {
    const held = setup([problem(422, '/problems/held-for-review')]);
    const intent = await held.client.createIntent(payment);
    expect(await held.client.submit(intent)).toMatchObject({
      kind: 'rejected',
      status: 422,
      final: true,
      attempts: 1,
      problem: { type: '/problems/held-for-review' },
    });
    expect(await held.storage.list()).toEqual([]);

    const unauthorized = setup([problem(401, '/problems/unauthorized')]);
    const kept = await unauthorized.client.createIntent(payment);
    expect(await unauthorized.client.submit(kept)).toMatchObject({
      kind: 'rejected',
      status: 401,
      final: false,
    });
    expect(await unauthorized.storage.list()).toEqual([kept]);
  });

  it('uses a key of the caller when given one and refuses one the server would refuse', async () => {
    const { client } = setup([]);
    expect((await client.createIntent(payment, { key: 'order-7f3a-submit' })).key).toBe('order-7f3a-submit');
    await expect(client.createIntent(payment, { key: 'short' })).rejects.toThrow(TypeError);
    await expect(client.createIntent(payment, { key: 'has space inside' })).rejects.toThrow(TypeError);
  });

  it('refuses a relative path when there is no base URL to resolve it against, before storing anything', async () => {
    const storage = createMemoryIntentStorage();
    const client = createIdempotentClient({ storage });
    await expect(client.createIntent(payment)).rejects.toThrow(TypeError);
    expect(await storage.list()).toEqual([]);
  });
});

describe('post', () => {
  it('creates and submits a POST intent in one call, keeping it stored when the client gives up', async () => {
    const { client, network } = setup([
      new TypeError('fetch failed'),
      new Response('{"paymentId":"p-1"}', { status: 201, headers: { 'content-type': 'application/json' } }),
    ]);
    const outcome = await client.post('/invoices/inv-1/payments', payment.body, { key: 'my-own-key-1' });
    expect(outcome).toMatchObject({ kind: 'succeeded', key: 'my-own-key-1', body: { paymentId: 'p-1' } });
    expect(network.seen.map((attempt) => attempt.idempotencyKey)).toEqual([
      '"my-own-key-1"',
      '"my-own-key-1"',
    ]);
    expect(network.seen[0]?.body).toBe(JSON.stringify(payment.body));

    const offline = setup([new TypeError('fetch failed')]);
    const gaveUp = await offline.client.post('/orders', { table: 4 }, { retry: { maxRetries: 0 } });
    expect(gaveUp.kind).toBe('gave-up');
    expect((await offline.client.pendingIntents()).map((intent) => intent.key)).toEqual([gaveUp.key]);
  });
});
