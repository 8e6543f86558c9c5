import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { allProjections } from '@once/read-models';
import { generateSecretsKey } from '@once/webhooks';
import { buildApp } from '../app.js';
import type { AppDeps } from '../app.js';
import { createApiKeyStore } from '../http/auth/index.js';
import type {} from '../http/plugins/postgres.plugin.js';

/** An api listening on a loopback port for one test file. */
export interface TestApi {
  readonly url: string;
  readonly app: FastifyInstance;
  /** A fresh tenant with API keys for two staff actors, an operator and an admin, so tests isolate by identity. */
  tenant(): Promise<TestTenant>;
  close(): Promise<void>;
}

export interface TestTenant {
  readonly tenantId: string;
  readonly alice: string;
  readonly bob: string;
  /** An operator of the same tenant (reads the console's `/ops` routes, resolves card payments that need attention). */
  readonly olga: string;
  /** An admin of the same tenant (configures it: webhook endpoints and deliveries, menu prices). */
  readonly ada: string;
}

/**
 * Resolves once the in-process projector has created every read model, so a test's first read is not the 503 that
 * tells a client the read models are still being built (the projector takes its leases after the app is up).
 */
const readModelsBuilt = async (app: FastifyInstance): Promise<void> => {
  const names = allProjections.map((projection) => projection.name);
  for (let attempt = 0; attempt < 600; attempt++) {
    const { rows } = await app.pg.query<{ missing: number }>(
      'SELECT count(*)::int AS missing FROM unnest($1::text[]) AS n(name) WHERE to_regclass(n.name) IS NULL',
      [names],
    );
    if (rows[0]?.missing === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the read models ${names.join(', ')} were not built within 30 s`);
};

/**
 * Builds the api over the given database and listens on 127.0.0.1 (a free port); with a server key of its own unless
 * `secretsKey` is given.
 *
 * @example
 * const api = await startTestApi({ databaseUrl: db.connectionString, gatewayUrl });
 */
export const startTestApi = async (
  deps: Omit<AppDeps, 'secretsKey'> & { readonly secretsKey?: string },
): Promise<TestApi> => {
  const app = await buildApp({ ...deps, secretsKey: deps.secretsKey ?? generateSecretsKey() });
  if (deps.projector !== 'external') await readModelsBuilt(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const apiKeys = createApiKeyStore(app.pg);
  return {
    url: `http://127.0.0.1:${String(port)}`,
    app,
    tenant: async () => {
      const tenantId = randomUUID();
      const [alice, bob, olga, ada] = await Promise.all([
        apiKeys.create({ tenantId, actorId: randomUUID(), label: 'alice' }),
        apiKeys.create({ tenantId, actorId: randomUUID(), label: 'bob' }),
        apiKeys.create({ tenantId, actorId: randomUUID(), label: 'olga', role: 'operator' }),
        apiKeys.create({ tenantId, actorId: randomUUID(), label: 'ada', role: 'admin' }),
      ]);
      return { tenantId, alice, bob, olga, ada };
    },
    close: () => app.close(),
  };
};
