import { describe, expect, it } from 'vitest';
import { useTestApi } from './testing/index.js';
import { prometheusNamingProblems } from '@once/testing';

const env = useTestApi();

const isProblem = (response: Response) =>
  expect(response.headers.get('content-type')).toContain('application/problem+json');

describe('operations endpoints', () => {
  it('reports health after checking the store', async () => {
    const response = await fetch(`${env.api.url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok' });
  });

  it('answers the liveness and readiness probes, readiness with what it checked', async () => {
    const live = await fetch(`${env.api.url}/health/live`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${env.api.url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ok',
      checks: { postgres: 'ok', eventStore: 'postgres', projector: 'alive', migrations: 'applied' },
    });
    const metrics = await (await fetch(`${env.api.url}/metrics`)).text();
    expect(metrics).toContain('once_projector_thread_restarts_total 0');
  });

  it('is not ready while a migration of this api is missing', async () => {
    const removed = await env.db.pool.query<{ version: number }>(
      `DELETE FROM once_migrations WHERE component = 'api'
        AND version = (SELECT max(version) FROM once_migrations WHERE component = 'api') RETURNING version, name`,
    );
    try {
      const ready = await fetch(`${env.api.url}/health/ready`);
      expect(ready.status).toBe(503);
      expect(ready.headers.get('retry-after')).toBe('1');
      expect(await ready.json()).toMatchObject({
        type: '/problems/service-unavailable',
        detail: 'migrations not applied: api',
      });
      expect((await fetch(`${env.api.url}/health/live`)).status).toBe(200);
    } finally {
      const [row] = removed.rows as { version: number; name: string }[];
      if (row)
        await env.db.pool.query(
          `INSERT INTO once_migrations (component, version, name) VALUES ('api', $1, $2)`,
          [row.version, row.name],
        );
    }
    expect((await fetch(`${env.api.url}/health/ready`)).status).toBe(200);
  });

  it('serves Prometheus metrics with request durations, each named with one once_ prefix', async () => {
    await fetch(`${env.api.url}/health`);
    const text = await (await fetch(`${env.api.url}/metrics`)).text();
    expect(text).toContain('once_http_request_duration_seconds_bucket');
    expect(text).toContain('route="/health"');
    expect(text).toContain('# TYPE once_process_cpu_seconds_total counter');
    expect(prometheusNamingProblems(text)).toEqual([]);
  });

  it('serves the OpenAPI document and the docs page', async () => {
    const spec = (await (await fetch(`${env.api.url}/docs/json`)).json()) as {
      openapi: string;
      paths: Record<
        string,
        Record<
          string,
          {
            parameters?: { name: string; in: string }[];
            responses?: Record<string, { headers?: Record<string, unknown> }>;
          }
        >
      >;
    };
    expect(spec.openapi).toMatch(/^3\./);
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining([
        '/invoices',
        '/invoices/{id}/payments',
        '/orders/{id}/complete',
        '/stock-counts/{id}/post',
      ]),
    );
    expect(spec.paths['/invoices/{id}/payments']?.['post']?.parameters).toContainEqual(
      expect.objectContaining({ name: 'idempotency-key', in: 'header' }),
    );
    const payment = spec.paths['/invoices/{id}/payments']?.['post'];
    expect(Object.keys(payment?.responses?.['201']?.headers ?? {})).toContain('once-position');
    const invoice = spec.paths['/invoices/{id}']?.['get'];
    expect(invoice?.parameters).toContainEqual(
      expect.objectContaining({ name: 'once-min-position', in: 'header' }),
    );
    expect(Object.keys(invoice?.responses?.['200']?.headers ?? {})).toContain('once-stale');
    expect((await fetch(`${env.api.url}/docs`, { redirect: 'follow' })).status).toBe(200);
  });

  it('documents every problem type it answers with', async () => {
    const page = await (await fetch(`${env.api.url}/problems`)).text();
    expect(page).toContain('/problems/idempotency-key-missing');
    const problem = await fetch(`${env.api.url}/problems/idempotency-key-reused`);
    expect(await problem.json()).toMatchObject({ status: 422 });
  });

  it('echoes a well-formed request id and makes one up otherwise', async () => {
    const given = await fetch(`${env.api.url}/health`, { headers: { 'x-request-id': 'req-123' } });
    expect(given.headers.get('x-request-id')).toBe('req-123');
    const made = await fetch(`${env.api.url}/health`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('errors', () => {
  it('answers an unknown route with a problem', async () => {
    const response = await fetch(`${env.api.url}/nowhere`);
    expect(response.status).toBe(404);
    isProblem(response);
    expect(await response.json()).toMatchObject({ type: '/problems/not-found', status: 404 });
  });
});
