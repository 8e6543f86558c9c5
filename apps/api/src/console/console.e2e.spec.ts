import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestApi } from '../testing/index.js';

const env = useTestApi();

const placeOrder = (apiKey: string, key: string, quantity = 1) =>
  env.http.post('/orders', {
    apiKey,
    key,
    body: { currency: 'EUR', lines: [{ sku: 'espresso', quantity, unitPrice: 250 }] },
  });

interface LookedUp {
  keys: {
    key: string;
    status: string;
    route: string;
    response?: { status: number; body: string };
    events: { type: string; data: unknown }[];
  }[];
}

/** Keys come from the key table, a projection: ask until it shows the key. */
const lookUp = async (query: string, apiKey = env.tenant.olga) => {
  let answer: LookedUp = { keys: [] };
  await expect
    .poll(async () => {
      answer = (await env.http.get(`/ops/keys?${query}`, apiKey)).json<LookedUp>();
      return answer.keys.length;
    })
    .toBeGreaterThan(0);
  return answer;
};

describe('console reads (/ops)', () => {
  it("shows a key's log and stored response to an operator of its tenant, by key and by the resource it created", async () => {
    const key = randomUUID();
    const placed = await placeOrder(env.tenant.alice, key);
    expect(placed.status).toBe(201);
    const orderId = placed.json<{ id: string }>().id;

    const byKey = await lookUp(`key=${key}`);
    expect(byKey.keys).toHaveLength(1);
    const [found] = byKey.keys;
    expect(found).toMatchObject({ key, status: 'completed', route: '/orders', response: { status: 201 } });
    expect(found?.response?.body).toBe(placed.text);
    expect(found?.events.at(-1)?.type).toBe('IdempotencyKeyCompleted');

    const byResource = await lookUp(`resource=${orderId}`);
    expect(byResource.keys.map((entry) => entry.key)).toEqual([key]);
  });

  it('shows nothing of another tenant', async () => {
    const key = randomUUID();
    expect((await placeOrder(env.tenant.alice, key)).status).toBe(201);
    await lookUp(`key=${key}`);
    const stranger = await env.api.tenant();
    const answer = await env.http.get(`/ops/keys?key=${key}`, stranger.olga);
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ keys: [] });
  });

  it('refuses a lookup without exactly one of key and resource, and any read without an API key', async () => {
    for (const query of [
      '',
      `key=${randomUUID()}&resource=${randomUUID()}`,
      'resource=not-a-uuid',
      'key=short',
    ]) {
      const answer = await env.http.get(`/ops/keys?${query}`, env.tenant.olga);
      expect(answer.status).toBe(400);
      expect(answer.json()).toMatchObject({ type: '/problems/invalid-request' });
    }
    for (const path of [
      '/ops/keys/in-flight',
      '/ops/projections',
      '/ops/routes',
      '/ops/payments/needing-attention',
    ])
      expect((await env.http.get(path)).status).toBe(401);
  });

  it('lists keys in flight and payments needing attention (none here), and every projection with its lag', async () => {
    expect((await env.http.get('/ops/keys/in-flight', env.tenant.olga)).json()).toEqual({ keys: [] });
    expect((await env.http.get('/ops/payments/needing-attention', env.tenant.olga)).json()).toEqual({
      payments: [],
    });
    const { projections } = (await env.http.get('/ops/projections', env.tenant.olga)).json<{
      projections: { name: string; behindEvents: number; countLimit: number }[];
    }>();
    expect(projections.map((projection) => projection.name)).toEqual(
      expect.arrayContaining(['idempotency_keys', 'invoices', 'orders', 'stock_counts']),
    );
    for (const projection of projections) {
      expect(projection.behindEvents).toBeGreaterThanOrEqual(0);
      expect(projection.behindEvents).toBeLessThanOrEqual(projection.countLimit);
    }
  });

  it("counts replays, 409s and 422s per route from the service's counters", async () => {
    const read = async () =>
      (await env.http.get('/ops/routes', env.tenant.olga))
        .json<{
          routes: {
            method: string;
            route: string;
            requests: number;
            replays: number;
            status422: number;
            keyed: number;
          }[];
        }>()
        .routes.find((route) => route.method === 'POST' && route.route === '/orders');
    const before = (await read()) ?? { requests: 0, replays: 0, status422: 0, keyed: 0 };
    const key = randomUUID();
    expect((await placeOrder(env.tenant.alice, key)).status).toBe(201);
    expect((await placeOrder(env.tenant.alice, key)).headers.get('idempotent-replayed')).toBe('true');
    expect((await placeOrder(env.tenant.alice, key, 2)).status).toBe(422);
    const after = await read();
    expect(after).toMatchObject({
      requests: before.requests + 3,
      keyed: before.keyed + 3,
      replays: before.replays + 1,
      status422: before.status422 + 1,
    });
  });
});
