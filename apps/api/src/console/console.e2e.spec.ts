import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { keyStreamName } from '@once/idempotency/key-log';
import { putDemoMenu, useTestApi } from '../testing/index.js';
import { keyLookupStatements } from './key-timeline.js';

const env = useTestApi();

beforeAll(async () => {
  await putDemoMenu(env.api.url, env.tenant.ada);
});

const placeOrder = (apiKey: string, key: string, quantity = 1) =>
  env.http.post('/orders', {
    apiKey,
    key,
    body: { currency: 'EUR', lines: [{ sku: 'espresso', quantity }] },
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

  it('looks keys up through an index, never by reading stored responses', async () => {
    const client = await env.db.pool.connect();
    try {
      // A table this small is cheapest to scan; with scans priced out, only a query an index serves avoids one.
      await client.query('SET enable_seqscan = off');
      for (const [statement, value] of [
        [keyLookupStatements.byKey, 'some-key'],
        [keyLookupStatements.byResource, randomUUID()],
      ] as const) {
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement}`, [
          env.tenant.tenantId,
          value,
          20,
        ]);
        const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
        expect(plan).toMatch(/Index|Bitmap/);
        expect(plan).not.toContain('Seq Scan');
      }
    } finally {
      await client.query('RESET enable_seqscan');
      client.release();
    }
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

  it('lists the keys the completer cannot resume, and counts them service-wide in /metrics', async () => {
    // A key claimed for a command this api no longer handles, and left in flight with its lease long ended.
    const stranger = await env.api.tenant();
    const tenantId = stranger.tenantId;
    const scope = { tenantId, actorId: randomUUID() };
    const key = `retired-${randomUUID()}`;
    await env.api.app.eventStore.appendToStream(
      keyStreamName(scope, key),
      [
        {
          id: randomUUID(),
          type: 'IdempotencyKeyClaimed',
          data: {
            ...scope,
            key,
            holder: randomUUID(),
            claimedAt: '2026-01-01T00:00:00.000Z',
            leaseExpiresAt: '2026-01-01T00:00:30.000Z',
            method: 'POST',
            route: '/retired',
            requestHash: 'a'.repeat(64),
            commandType: 'RetiredCommand',
            commandVersion: 1,
            command: {},
          },
        },
      ],
      { expectedRevision: 'no_stream' },
    );

    await expect
      .poll(async () => (await env.http.get('/ops/keys/unresumable', stranger.olga)).json())
      .toEqual({
        keys: [{ key, commandType: 'RetiredCommand', leaseExpiredAt: '2026-01-01T00:00:30.000Z' }],
      });
    expect((await env.http.get('/ops/keys/unresumable', env.tenant.olga)).json()).toEqual({ keys: [] });
    expect((await env.http.get('/ops/keys/unresumable', stranger.alice)).status).toBe(403);
    expect((await env.http.get('/ops/keys/unresumable')).status).toBe(401);
    const metrics = await (await fetch(`${env.api.url}/metrics`)).text();
    expect(metrics).toMatch(/^once_completer_unresumable_keys [1-9]\d*$/m);
  });
});
