import fp from 'fastify-plugin';
import type { ApiKeyStore, Principal } from '../auth/index.js';
import { HttpProblem } from '../problems/index.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, set by the auth hook on every route registered inside the authenticated scope. */
    principal: Principal;
  }
}

const bearer = /^Bearer +([\x21-\x7e]{1,512})$/i;

/**
 * Authenticates every request of the scope it is registered in: `Authorization: Bearer <api key>` → the principal
 * (tenant, actor). A missing or unknown key is 401 `unauthorized`, answered before any idempotency work.
 */
export const authPlugin = fp<{ apiKeys: ApiKeyStore }>(
  async (app, { apiKeys }) => {
    app.decorateRequest('principal', null as unknown as Principal);
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
    });
  },
  { name: 'once-auth', fastify: '5.x' },
);
