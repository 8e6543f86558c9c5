import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestApi } from '../../testing/index.js';
import { apiKeyRoles, keyRoleAllows, routeRoles } from './index.js';
import type { ApiKeyRole, RouteRole } from './index.js';

// Every optional route group on: the till and console pages (from an empty directory: each answers 404) and CORS.
const env = useTestApi({
  webAssetsDirectory: join(tmpdir(), `once-no-web-assets-${randomUUID()}`),
  operations: { corsOrigins: ['https://till.example'] },
});

const operationsMd = new URL('../../../OPERATIONS.md', import.meta.url);

/** `| \`POST /payments/:id/resolve\` | operator |` rows of the role table in OPERATIONS.md. */
const documentedRoles = async (): Promise<Map<string, string>> => {
  const text = await readFile(operationsMd, 'utf8');
  const rows = [...text.matchAll(/^\| `([A-Z]+ [^`]+)` +\| (\w+) +\|$/gm)];
  return new Map(rows.map(([, route, role]) => [route as string, role as string]));
};

/** The app's routes as `METHOD /url` with their role, HEAD routes left out (each follows its GET). */
const declared = (): Map<string, RouteRole | undefined> =>
  new Map(
    env.api.app
      .declaredRoutes()
      .filter((route) => route.method !== 'HEAD')
      .map((route) => [`${route.method} ${route.url}`, route.role]),
  );

const keyRouteEntries = (): [string, ApiKeyRole][] =>
  [...declared()].flatMap(([route, role]) =>
    role === undefined || role === 'public' ? [] : [[route, role] as [string, ApiKeyRole]],
  );

/** A URL for a route's pattern: fresh ids for its parameters (no such resource: the role is checked first). */
const concreteUrl = (url: string): string =>
  url.replace(/:(\w+)/g, (_match, name: string) => {
    switch (name) {
      case 'sku':
        return 'espresso';
      case 'key':
        return `no-such-key-${randomUUID()}`;
      case 'file':
        return 'till.js';
      default:
        return randomUUID();
    }
  });

const call = (route: string, apiKey?: string) => {
  const [method, url] = route.split(' ') as [string, string];
  return fetch(`${env.api.url}${concreteUrl(url)}`, {
    method,
    headers: apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` },
  });
};

describe('who may call each route', () => {
  it('every route of the app declares a role, and OPERATIONS.md lists each with the same one', async () => {
    const routes = declared();
    expect([...routes].filter(([, role]) => role === undefined)).toEqual([]);
    for (const role of routes.values()) expect(routeRoles).toContain(role);
    // Swagger UI's own pages (its scripts, styles and settings under /docs) are listed once, as `GET /docs/*`.
    const swaggerUiPage = /^GET \/docs\/(?!json$)/;
    const swaggerUiRoles = [...routes].filter(([route]) => swaggerUiPage.test(route)).map(([, role]) => role);
    expect(swaggerUiRoles.length).toBeGreaterThan(0);
    expect(new Set(swaggerUiRoles)).toEqual(new Set(['public']));
    const documentable = [...routes].filter(([route]) => !swaggerUiPage.test(route));
    expect(new Map([...documentable, ['GET /docs/*', 'public']])).toEqual(await documentedRoles());
  });

  it('answers 403 forbidden to every key below a route’s role, and lets every key at or above it through', async () => {
    const keys: Readonly<Record<ApiKeyRole, string>> = {
      staff: env.tenant.alice,
      operator: env.tenant.olga,
      admin: env.tenant.ada,
    };
    const entries = keyRouteEntries();
    expect(entries.length).toBeGreaterThan(30);
    const mismatches: string[] = [];
    for (const [route, needed] of entries) {
      for (const keyRole of apiKeyRoles) {
        const answer = await call(route, keys[keyRole]);
        const body = await answer.text();
        const refused = answer.status === 403;
        if (keyRoleAllows(keyRole, needed)) {
          // Let through: whatever the handler answers to an empty request, never a refusal and never a 500.
          if (refused || answer.status >= 500)
            mismatches.push(`${route} as ${keyRole}: ${answer.status} ${body}`);
        } else {
          const isForbiddenProblem =
            refused &&
            answer.headers.get('content-type')?.startsWith('application/problem+json') === true &&
            (JSON.parse(body) as { type?: string }).type === '/problems/forbidden';
          if (!isForbiddenProblem) mismatches.push(`${route} as ${keyRole}: ${answer.status} ${body}`);
        }
      }
      expect((await call(route)).status, `${route} without a key`).toBe(401);
    }
    expect(mismatches).toEqual([]);
  });

  it('lets anyone call the public routes, without a key', async () => {
    const publicRoutes = [...declared()].filter(
      ([route, role]) => role === 'public' && !route.includes('*') && !route.startsWith('POST '),
    );
    expect(publicRoutes.map(([route]) => route)).toEqual(
      expect.arrayContaining(['GET /health', 'GET /docs/json', 'GET /problems', 'GET /metrics']),
    );
    for (const [route] of publicRoutes) {
      const answer = await call(route);
      expect([401, 403], route).not.toContain(answer.status);
    }
  });

  it('says in the OpenAPI document which role each operation needs, with the 403 of those above staff', async () => {
    interface Operation {
      readonly 'x-once-role'?: string;
      readonly security?: readonly unknown[];
      readonly responses?: Readonly<Record<string, unknown>>;
    }
    const spec = (await (await fetch(`${env.api.url}/docs/json`)).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const routes = declared();
    const operations = Object.entries(spec.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => {
        const url = path.replace(/\{(\w+)\}/g, ':$1').replace(/(.)\/$/, '$1');
        return { route: `${method.toUpperCase()} ${url}`, operation };
      }),
    );
    expect(operations.length).toBeGreaterThan(30);
    for (const { route, operation } of operations) {
      const role = routes.get(route);
      expect(operation['x-once-role'], route).toBe(role);
      expect(Object.keys(operation.responses ?? {}).includes('403'), route).toBe(
        role === 'operator' || role === 'admin',
      );
      if (role === 'public') expect(operation.security, route).toEqual([]);
    }
  });

  it('refuses a staff key and an operator key that would set or withdraw a menu price', async () => {
    for (const route of ['PUT /menu/items/:sku', 'DELETE /menu/items/:sku'])
      for (const apiKey of [env.tenant.alice, env.tenant.olga]) {
        const answer = await call(route, apiKey);
        expect(answer.status, route).toBe(403);
        expect(await answer.json()).toMatchObject({ type: '/problems/forbidden' });
      }
  });

  it('keeps the console to operators, and webhook endpoints and prices to admins', () => {
    const roleOf = new Map(keyRouteEntries());
    const matching = (pattern: RegExp) => [...roleOf].filter(([route]) => pattern.test(route));
    const ops = matching(/^GET \/ops\//);
    expect(ops.length).toBeGreaterThanOrEqual(5);
    expect(ops.filter(([, role]) => role !== 'operator')).toEqual([]);
    const webhookEndpoints = matching(/ \/webhook-endpoints/);
    expect(webhookEndpoints.length).toBeGreaterThanOrEqual(12);
    expect(webhookEndpoints.filter(([, role]) => role !== 'admin')).toEqual([]);
    expect(roleOf.get('PUT /menu/items/:sku')).toBe('admin');
    expect(roleOf.get('DELETE /menu/items/:sku')).toBe('admin');
    expect(roleOf.get('POST /payments/:id/resolve')).toBe('operator');
    // The till's work stays open to staff keys.
    for (const route of [
      'POST /orders',
      'POST /invoices/:id/payments',
      'GET /menu',
      'GET /idempotency-keys/:key',
    ])
      expect(roleOf.get(route), route).toBe('staff');
  });
});
