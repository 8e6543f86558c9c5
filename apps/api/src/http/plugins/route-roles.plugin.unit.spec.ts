import Fastify from 'fastify';
import type { FastifyContextConfig, FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { declarePublic, keyRoleAllows } from '../auth/index.js';
import type { ApiKeyRole, ApiKeyStore, Principal } from '../auth/index.js';
import { problemCatalog, problemOfError } from '@once/cafe';
import { authPlugin } from './auth.plugin.js';
import { problemDetailsPlugin } from './problem-details.plugin.js';
import { routeRolesPlugin } from './route-roles.plugin.js';

const keysOfRoles: Readonly<Record<string, Principal>> = {
  'staff-key': { tenantId: 't', actorId: 's', role: 'staff' },
  'operator-key': { tenantId: 't', actorId: 'o', role: 'operator' },
  'admin-key': { tenantId: 't', actorId: 'a', role: 'admin' },
  'roleless-key': { tenantId: 't', actorId: 'r' },
};
const apiKeys = {
  findPrincipal: async (apiKey: string) => keysOfRoles[apiKey],
} as Pick<ApiKeyStore, 'findPrincipal'> as ApiKeyStore;

const build = async (declare: (app: FastifyInstance) => void | Promise<void>) => {
  const app = Fastify();
  await app.register(routeRolesPlugin);
  await app.register(problemDetailsPlugin, { catalog: problemCatalog, problemOf: problemOfError });
  await declare(app);
  return app;
};

describe('route roles', () => {
  it('orders the key roles staff < operator < admin', () => {
    const roles: ApiKeyRole[] = ['staff', 'operator', 'admin'];
    const allowed = roles.map((held) => roles.filter((needed) => keyRoleAllows(held, needed)));
    expect(allowed).toEqual([['staff'], ['staff', 'operator'], ['staff', 'operator', 'admin']]);
  });

  it('lists every route with its role, and does not start while one declares none', async () => {
    const app = await build((root) => {
      root.get('/declared', { config: { role: 'public' } }, async () => ({}));
      root.post('/forgotten', async () => ({}));
    });
    expect(app.declaredRoutes()).toEqual([
      { method: 'GET', url: '/declared', role: 'public' },
      { method: 'HEAD', url: '/declared', role: 'public' },
      { method: 'POST', url: '/forgotten', role: undefined },
    ]);
    await expect(app.ready()).rejects.toThrow(/POST \/forgotten/);
  });

  it("declares public the routes of a third-party plugin's scope, and only those declarePublic matches", async () => {
    const app = await build(async (root) => {
      await root.register(async (scope) => {
        scope.addHook(
          'onRoute',
          declarePublic((route) => route.url !== '/scoped/own'),
        );
        scope.get('/scoped/page', async () => ({}));
        scope.get('/scoped/own', { config: { role: 'admin' } }, async () => ({}));
        scope.get('/scoped/undeclared-by-choice', async () => ({}));
      });
    });
    expect(Object.fromEntries(app.declaredRoutes().map((route) => [route.url, route.role]))).toEqual({
      '/scoped/page': 'public',
      '/scoped/own': 'admin',
      '/scoped/undeclared-by-choice': 'public',
    });
    await app.ready();
    await app.close();
  });

  it('answers 403 forbidden to a key below the route’s role, before the handler, and lets the others through', async () => {
    const handled: string[] = [];
    const app = await build(async (root) => {
      await root.register(async (authenticated) => {
        await authenticated.register(authPlugin, { apiKeys });
        for (const role of ['staff', 'operator', 'admin'] as const) {
          authenticated.post(`/${role}`, { config: { role } }, async (request) => {
            handled.push(`${request.principal.actorId} ${role}`);
            return {};
          });
        }
      });
    });
    const call = async (apiKey: string, role: string) =>
      app.inject({ method: 'POST', url: `/${role}`, headers: { authorization: `Bearer ${apiKey}` } });

    const answers: Record<string, number[]> = {};
    for (const apiKey of Object.keys(keysOfRoles)) {
      answers[apiKey] = [];
      for (const role of ['staff', 'operator', 'admin'])
        answers[apiKey].push((await call(apiKey, role)).statusCode);
    }
    expect(answers).toEqual({
      'staff-key': [200, 403, 403],
      'operator-key': [200, 200, 403],
      'admin-key': [200, 200, 200],
      'roleless-key': [200, 403, 403],
    });
    expect(handled).toEqual([
      's staff',
      'o staff',
      'o operator',
      'a staff',
      'a operator',
      'a admin',
      'r staff',
    ]);
    const refused = await call('operator-key', 'admin');
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(refused.json()).toMatchObject({ type: '/problems/forbidden', status: 403 });
    await app.close();
  });

  it('refuses at declaration a route of the authenticated scope that declares no key role', async () => {
    const undeclaredOrPublic: FastifyContextConfig[] = [{}, { role: 'public' }];
    for (const config of undeclaredOrPublic) {
      await expect(
        build(async (root) => {
          await root.register(async (authenticated) => {
            await authenticated.register(authPlugin, { apiKeys });
            authenticated.get('/reads', { config }, async () => ({}));
          });
        }),
      ).rejects.toThrow(/GET \/reads needs an API key/);
    }
  });
});
