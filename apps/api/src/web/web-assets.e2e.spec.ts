import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestApi } from '../testing/index.js';

const directory = mkdtempSync(join(tmpdir(), 'once-web-assets-'));
writeFileSync(join(directory, 'till.html'), '<!doctype html><title>till</title>');
writeFileSync(join(directory, 'till.js'), 'export {};');
const env = useTestApi({ webAssetsDirectory: directory });

describe('the pages of the till and the console', () => {
  it('serves the built files with their types, without an API key', async () => {
    const page = await env.http.get('/till');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<title>till</title>');
    expect((await env.http.get('/web/till.js')).headers.get('content-type')).toBe(
      'text/javascript; charset=utf-8',
    );
  });

  it('sends a strict Content-Security-Policy, no framing and nosniff with the pages, and nosniff with the api', async () => {
    for (const path of ['/till', '/web/till.js', '/console']) {
      const response = await env.http.get(path);
      const policy = response.headers.get('content-security-policy') ?? '';
      expect(policy).toContain("default-src 'none'");
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|upgrade-insecure-requests/);
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const api = await env.http.get('/health');
    expect(api.headers.get('x-content-type-options')).toBe('nosniff');
    expect(api.headers.get('content-security-policy')).toBeNull();
    const problem = await env.http.get('/invoices/not-a-uuid', env.tenant.alice);
    expect(problem.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('answers a missing build with a 404 saying how to build, and a path outside it with a 400', async () => {
    const missing = await env.http.get('/console');
    expect(missing.status).toBe(404);
    expect(missing.json()).toMatchObject({
      type: '/problems/not-found',
      detail: expect.stringContaining('npm run bundle'),
    });
    expect((await env.http.get('/web/..%2Fpackage.json')).status).toBe(400);
    expect((await env.http.get('/web/.env')).status).toBe(400);
  });
});
