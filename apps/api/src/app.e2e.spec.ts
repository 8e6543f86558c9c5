import { describe, expect, it } from 'vitest';
import { useTestApi } from './testing/index.js';

const env = useTestApi();

const isProblem = (response: Response) =>
  expect(response.headers.get('content-type')).toContain('application/problem+json');

describe('operations endpoints', () => {
  it('reports health after checking the store', async () => {
    const response = await fetch(`${env.api.url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('serves Prometheus metrics with request durations', async () => {
    await fetch(`${env.api.url}/health`);
    const text = await (await fetch(`${env.api.url}/metrics`)).text();
    expect(text).toContain('http_request_duration_seconds_bucket');
    expect(text).toContain('route="/health"');
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
        '/invoices/',
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
