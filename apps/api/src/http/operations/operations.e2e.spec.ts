import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyId, createApiKeyStore } from '../auth/index.js';
import { startTestApi, useTestApi } from '../../testing/index.js';
import type { TestApi } from '../../testing/index.js';
import type {} from '../plugins/observability.plugin.js';

const allowedOrigin = 'https://till.example';

const listed = (field: string | null): string[] =>
  (field ?? '')
    .split(',')
    .map((member) => member.trim().toLowerCase())
    .filter((member) => member !== '');

const env = useTestApi({
  operations: {
    rateLimits: { perAddress: { max: 10_000, windowMs: 60_000 }, perTenant: { max: 6, windowMs: 60_000 } },
    corsOrigins: [allowedOrigin],
    metricsListener: { port: 0 },
    apiKeyCacheTtlMs: 50,
    poolIdleTimeoutMs: 120_000,
  },
});

describe('limits, keys and defaults of a long-running api', () => {
  it('answers 429 rate-limited with Retry-After past the tenant limit, and leaves other tenants alone', async () => {
    const tenant = await env.api.tenant();
    const other = await env.api.tenant();
    const statuses: number[] = [];
    for (let request = 0; request < 6; request++) {
      statuses.push((await env.http.get('/idempotency-keys/none-such-key', tenant.alice)).status);
    }
    expect(statuses.every((status) => status !== 429)).toBe(true);
    const limited = await env.http.get('/idempotency-keys/none-such-key', tenant.bob);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(limited.json<{ type: string }>().type).toBe('/problems/rate-limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit')).toMatch(/"tenant";r=0;t=\d+/);
    expect((await env.http.get('/idempotency-keys/none-such-key', other.alice)).status).not.toBe(429);
  });

  it('sends the IETF RateLimit fields on every answer of a limited route, each policy counting down', async () => {
    const tenant = await env.api.tenant();
    const remaining: number[] = [];
    for (const request of [0, 1]) {
      const answer = await env.http.get('/idempotency-keys/none-such-key', tenant.alice);
      expect(answer.status, `request ${String(request)}`).toBe(404);
      expect(answer.headers.get('ratelimit-policy')).toBe('"address";q=10000;w=60, "tenant";q=6;w=60');
      const fields = /^"address";r=(\d+);t=(\d+), "tenant";r=(\d+);t=(\d+)$/.exec(
        answer.headers.get('ratelimit') ?? '',
      );
      expect(fields, answer.headers.get('ratelimit') ?? 'no RateLimit field').not.toBeNull();
      remaining.push(Number(fields?.[3]));
      expect(Number(fields?.[4])).toBeLessThanOrEqual(60);
    }
    expect(remaining).toEqual([5, 4]);
    const health = await fetch(`${env.api.url}/health/live`);
    expect(health.status).toBe(200);
    expect(health.headers.get('ratelimit-policy')).toBe('"address";q=10000;w=60');
    expect(health.headers.get('ratelimit')).toMatch(/^"address";r=\d+;t=\d+$/);
  });

  it('stops accepting a revoked key within the key cache TTL', async () => {
    const tenant = await env.api.tenant();
    expect((await env.http.get('/idempotency-keys/none-such-key', tenant.alice)).status).toBe(404);
    const keys = createApiKeyStore(env.db.pool);
    expect(await keys.revoke(apiKeyId(tenant.alice))).toBe(true);
    let status = 0;
    for (let attempt = 0; attempt < 200 && status !== 401; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      status = (await env.http.get('/idempotency-keys/none-such-key', tenant.alice)).status;
    }
    expect(status).toBe(401);
    const [listed] = (await keys.list({ tenantId: tenant.tenantId })).filter(
      (key) => key.keyId === apiKeyId(tenant.alice),
    );
    expect(listed?.revokedAt).toBeInstanceOf(Date);
    expect(listed?.lastUsedAt).toBeInstanceOf(Date);
  });

  it('allows CORS for the configured origin only, exposing the headers a browser client needs', async () => {
    const allowed = await fetch(`${env.api.url}/health`, { headers: { origin: allowedOrigin } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe(allowedOrigin);
    const exposed = listed(allowed.headers.get('access-control-expose-headers'));
    expect(exposed).toEqual(
      expect.arrayContaining([
        'idempotent-replayed',
        'retry-after',
        'once-position',
        'once-stale',
        'location',
        'link',
        'ratelimit-policy',
        'ratelimit',
        'x-request-id',
      ]),
    );
    const refused = await fetch(`${env.api.url}/health`, { headers: { origin: 'https://evil.example' } });
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets a preflight send every method the routes use and every header they read', async () => {
    const document = (await env.http.get('/docs/json')).json<{
      paths: Record<string, Record<string, unknown>>;
    }>();
    const methods = new Set(
      Object.values(document.paths).flatMap((item) =>
        Object.keys(item).map((method) => method.toUpperCase()),
      ),
    );
    expect([...methods]).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'DELETE']));
    const preflight = await fetch(`${env.api.url}/menu/items/espresso`, {
      method: 'OPTIONS',
      headers: {
        origin: allowedOrigin,
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'authorization,content-type,idempotency-key,once-min-position',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(allowedOrigin);
    expect(listed(preflight.headers.get('access-control-allow-methods'))).toEqual(
      expect.arrayContaining([...methods].map((method) => method.toLowerCase())),
    );
    expect(listed(preflight.headers.get('access-control-allow-headers'))).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'once-min-position']),
    );
  });

  it('lets a browser read the headers of a real command answer and its replay', async () => {
    const key = `cors-${randomUUID()}`;
    const send = () =>
      fetch(`${env.api.url}/invoices`, {
        method: 'POST',
        headers: {
          origin: allowedOrigin,
          authorization: `Bearer ${env.tenant.ada}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify({ currency: 'EUR', total: 1200 }),
      });
    const first = await send();
    expect(first.status).toBe(201);
    const replay = await send();
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const exposed = listed(replay.headers.get('access-control-expose-headers'));
    for (const header of ['idempotent-replayed', 'once-position', 'ratelimit', 'ratelimit-policy']) {
      expect(replay.headers.get(header), header).not.toBeNull();
      expect(exposed, header).toContain(header);
    }
  });

  it('serves /metrics on its own listener, with the scavenger counters, and not on the api port', async () => {
    const metricsUrl = env.api.app.metricsUrl();
    expect(metricsUrl).toBeDefined();
    const metrics = await (await fetch(metricsUrl as string)).text();
    expect(metrics).toContain('once_scavenger_removed_streams_total');
    expect(metrics).toContain('once_scavenger_lag_seconds');
    expect((await fetch(`${env.api.url}/metrics`)).status).toBe(404);
  });

  it('refuses a Once-Min-Position past the head of the log with 400 position-ahead', async () => {
    const ahead = await env.http.get(`/invoices/${randomUUID()}`, env.tenant.alice, {
      'once-min-position': '00000000000000000001:00000000009999999999',
    });
    expect(ahead.status).toBe(400);
    expect(ahead.json<{ type: string }>().type).toBe('/problems/position-ahead');
    const unreachable = await env.http.get(`/invoices/${randomUUID()}`, env.tenant.bob, {
      'once-min-position': '99999999999999999999:99999999999999999999',
    });
    expect(unreachable.status).toBe(400);
  });

  it('documents the 429 and its Retry-After on every operation', async () => {
    const document = (await env.http.get('/docs/json')).json<{
      paths: Record<string, Record<string, { responses: Record<string, { headers?: object }> }>>;
    }>();
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
    expect(operations.length).toBeGreaterThan(5);
    for (const operation of operations)
      expect(operation.responses['429']?.headers).toHaveProperty('Retry-After');
  });
});

describe('the per-address limit and the defaults', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({
      databaseUrl: env.db.connectionString,
      gatewayUrl: 'http://127.0.0.1:9',
      logger: false,
      operations: {
        scavenger: false,
        rateLimits: { perAddress: { max: 3, windowMs: 60_000 }, perTenant: { max: 1_000, windowMs: 60_000 } },
      },
    });
  });
  afterAll(async () => {
    await api.close();
  });

  it('limits a client address before authentication, and sends no CORS headers by default', async () => {
    const statuses: number[] = [];
    for (let request = 0; request < 4; request++) {
      const response = await fetch(`${api.url}/invoices/${randomUUID()}`, {
        headers: { origin: allowedOrigin },
      });
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      statuses.push(response.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it('keeps idle pool connections as long as told, five minutes by default', () => {
    expect(env.api.app.pg.options.idleTimeoutMillis).toBe(120_000);
    expect(api.app.pg.options.idleTimeoutMillis).toBe(300_000);
  });
});

describe('the per-address limit behind a proxy (ONCE_TRUST_PROXY)', () => {
  const apis: TestApi[] = [];
  const startBehind = async (trustProxy: number | readonly string[] | undefined): Promise<TestApi> => {
    const api = await startTestApi({
      databaseUrl: env.db.connectionString,
      gatewayUrl: 'http://127.0.0.1:9',
      logger: false,
      operations: {
        scavenger: false,
        rateLimits: { perAddress: { max: 2, windowMs: 60_000 }, perTenant: { max: 1_000, windowMs: 60_000 } },
        ...(trustProxy ? { trustProxy } : {}),
      },
    });
    apis.push(api);
    return api;
  };
  afterAll(async () => {
    await Promise.all(apis.map((api) => api.close()));
  });
  const from = async (api: TestApi, client: string): Promise<number> =>
    (await fetch(`${api.url}/invoices/${randomUUID()}`, { headers: { 'x-forwarded-for': client } })).status;

  it('gives each client behind a trusted proxy its own bucket (by address or hop count)', async () => {
    for (const trustProxy of [['127.0.0.1'], 1]) {
      const api = await startBehind(trustProxy);
      expect([await from(api, '203.0.113.1'), await from(api, '203.0.113.1')]).toEqual([401, 401]);
      expect(await from(api, '203.0.113.1')).toBe(429);
      expect(await from(api, '203.0.113.2')).toBe(401);
    }
  });

  it('ignores X-Forwarded-For from a proxy it does not trust, or when it trusts none', async () => {
    for (const trustProxy of [['10.9.9.9'], undefined]) {
      const api = await startBehind(trustProxy);
      expect([await from(api, '203.0.113.1'), await from(api, '203.0.113.2')]).toEqual([401, 401]);
      expect(await from(api, '203.0.113.3')).toBe(429);
    }
  });
});
