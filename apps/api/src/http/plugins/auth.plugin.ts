import fp from 'fastify-plugin';
import type { ApiKeyStore, Principal } from '../auth/index.js';
import { keyRoleAllows } from '../auth/index.js';
import { HttpProblem } from '@once/cafe';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, set by the auth hook on every route registered inside the authenticated scope. */
    principal: Principal;
  }
}

const bearer = /^Bearer +([\x21-\x7e]{1,512})$/i;

/**
 * Authenticates every request of the scope it is registered in: `Authorization: Bearer <api key>` → the principal
 * (tenant, actor, role). A missing or unknown key is 401 `unauthorized`; a key below the role the route declares
 * (`config: { role }`) is 403 `forbidden`. Both are answered before the body is read and before any idempotency work,
 * so nothing is stored for them. Every route of the scope must declare a key role (`public` routes live outside it).
 *
 * @example
 * await app.register(async (authenticated) => {
 *   await authenticated.register(authPlugin, { apiKeys: createApiKeyStore(app.pg) });
 *   authenticated.get('/ops/routes', { config: { role: 'operator' } }, async () => ({ routes: [] }));
 * });
 */
export const authPlugin = fp<{ apiKeys: ApiKeyStore }>(
  async (app, { apiKeys }) => {
    app.decorateRequest('principal', null as unknown as Principal);
    app.addHook('onRoute', (route) => {
      const role = route.config?.role;
      if (role === undefined || role === 'public') {
        throw new Error(
          `${String(route.method)} ${route.url} needs an API key, so it declares the least key role that may call it ` +
            `(config: { role: 'staff' | 'operator' | 'admin' }), not ${role ?? 'none'}`,
        );
      }
    });
    app.addHook('onRequest', async (request) => {
      const header = request.headers.authorization;
      const apiKey = header === undefined ? undefined : bearer.exec(header)?.[1];
      const principal = apiKey === undefined ? undefined : await apiKeys.findPrincipal(apiKey);
      if (!principal) {
        throw new HttpProblem('unauthorized', {
          detail: header ? 'the API key is not valid' : undefined,
          headers: {
            'www-authenticate': 'Bearer realm="once"',
          },
        });
      }
      request.principal = principal;
      // The key's public id on every later log line of this request (audits name keys, never show them).
      if (principal.keyId) request.log = request.log.child({ keyId: principal.keyId });
      const needed = request.routeOptions.config.role;
      const keyRole = principal.role ?? 'staff';
      if (needed === undefined || needed === 'public' || !keyRoleAllows(keyRole, needed)) {
        const route = `${request.method} ${request.routeOptions.url ?? request.url}`;
        throw new HttpProblem('forbidden', {
          detail:
            needed === undefined || needed === 'public'
              ? `${route} declares no key role`
              : `${route} needs a key of role ${needed} or above; this key's role is ${keyRole}`,
        });
      }
    });
  },
  { name: 'once-auth', fastify: '5.x' },
);
