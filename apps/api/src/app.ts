import { randomUUID } from 'node:crypto';
import Fastify, { LogController } from 'fastify';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { DomainError, domainErrorCatalog } from '@once/domain';
import { idempotencyFastifyPlugin } from '@once/idempotency';
import { apiKeyMigrations, createApiKeyStore } from './auth/index.js';
import { createCommandRegistry } from './commands/command-registry.js';
import { apiIdempotencyOptions } from './commands/keyed-command.js';
import { consistencyPlugin, defaultReadWaitMs } from './consistency/index.js';
import type { ProcessFaultHook } from './faults/index.js';
import { healthRoutes } from './health/health.routes.js';
import { idempotencyKeysRoutes } from './idempotency-keys/idempotency-keys.routes.js';
import { invoicesRoutes } from './invoices/invoices.routes.js';
import { paymentsRoutes } from './invoices/payments.routes.js';
import { ordersRoutes } from './orders/orders.routes.js';
import { consoleRoutes } from './console/index.js';
import { menuMigrations, menuRoutes } from './menu/index.js';
import { authPlugin } from './plugins/auth.plugin.js';
import { completerPlugin } from './plugins/completer.plugin.js';
import { docsPlugin } from './plugins/docs.plugin.js';
import { eventStorePlugin } from './plugins/event-store.plugin.js';
import { gatewayPlugin } from './plugins/gateway.plugin.js';
import { idempotencyEnginePlugin } from './plugins/idempotency-engine.plugin.js';
import { observabilityPlugin } from './plugins/observability.plugin.js';
import { postgresPlugin } from './plugins/postgres.plugin.js';
import { problemDetailsPlugin } from './plugins/problem-details.plugin.js';
import { projectorPlugin } from './plugins/projector.plugin.js';
import { strictJsonPlugin } from './plugins/strict-json.plugin.js';
import { createProblemCatalog } from './problems/problem-catalog.js';
import { stockCountsRoutes } from './stock-counts/stock-counts.routes.js';
import { webAssetsRoutes } from './web/index.js';
import { webhooksRoutes } from './webhooks/webhooks.routes.js';

/** Everything the API is built from. `main.ts` fills it from the environment; tests fill it directly. */
export interface AppDeps {
  /** PostgreSQL: api keys, read models, the key table, and the event streams unless `eventStoreUrl` is set. */
  readonly databaseUrl: string;
  /** EventStoreDB for the streams (`esdb://…`); PostgreSQL (`databaseUrl`) when omitted. */
  readonly eventStoreUrl?: string;
  /** The card gateway (apps/gateway-sim or a real one with the same contract). */
  readonly gatewayUrl: string;
  /** How long the api waits for the gateway before treating the charge as unknown (ms); 5 s by default. */
  readonly gatewayTimeoutMs?: number;
  /** The shared secret gateway webhooks are signed with; without it every webhook is refused. */
  readonly gatewayWebhookSecret?: string | undefined;
  /** `off` is for the benchmark only: commands run without the idempotency layer. */
  readonly idempotency?: 'on' | 'off';
  /** Test-only fault points (see `ONCE_FAULT`). */
  readonly faults?: ProcessFaultHook;
  /** How long a crashed request holds its key before a retry may take it over (ms); 30 s by default. */
  readonly leaseMs?: number;
  readonly logger?: FastifyServerOptions['logger'];
  /** `in-process` (default) runs the read-model projections here; `external` leaves them to apps/projector. */
  readonly projector?: 'in-process' | 'external';
  /** Pause between sweeps of the completer, which finishes keys whose client went quiet (ms); 5 s by default. */
  readonly completerIntervalMs?: number;
  /** Connections in the PostgreSQL pool; 20 by default. */
  readonly poolSize?: number;
  /** Request body limit in bytes; 64 KiB by default. */
  readonly bodyLimit?: number;
  /** The longest a read waits for its `Once-Min-Position` before answering with `Once-Stale: true` (ms); 5 s by default. */
  readonly readWaitMs?: number;
  /** The built till and console (apps/till `dist/`), served at `/till` and `/console`; not served when omitted. */
  readonly webAssetsDirectory?: string;
}

const requestIdPattern = /^[\w.:-]{1,128}$/;

/**
 * Builds the API: plugins and routes, wiring only. The caller listens and closes.
 *
 * @example
 * const app = await buildApp({ databaseUrl: 'postgres://…', logger: false });
 * await app.listen({ port: 3000 });
 */
export const buildApp = async (deps: AppDeps): Promise<FastifyInstance> => {
  const bodyLimit = deps.bodyLimit ?? 64 * 1024;
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit,
    // One log line per request comes from the observability plugin (with the idempotency outcome).
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: false,
    genReqId: (request) => {
      const offered = request.headers['x-request-id'];
      return typeof offered === 'string' && requestIdPattern.test(offered) ? offered : randomUUID();
    },
    routerOptions: { maxParamLength: 300 },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });

  // A plugin that fails half way must not leave what earlier plugins opened (the pool, the projector) running.
  try {
    const catalog = createProblemCatalog(domainErrorCatalog);
    await app.register(problemDetailsPlugin, {
      catalog,
      isDomainError: (error) => error instanceof DomainError,
    });
    await app.register(strictJsonPlugin, { bodyLimit });
    await app.register(observabilityPlugin);
    await app.register(consistencyPlugin, { readWaitMs: deps.readWaitMs ?? defaultReadWaitMs });
    await app.register(docsPlugin, { catalog, version: '0.1.0' });
    await app.register(postgresPlugin, {
      connectionString: deps.databaseUrl,
      ...(deps.poolSize === undefined ? {} : { poolSize: deps.poolSize }),
      migrations: [
        { component: 'api', migrations: apiKeyMigrations },
        { component: 'menu', migrations: menuMigrations },
      ],
    });
    await app.register(healthRoutes);

    await app.register(eventStorePlugin, { eventStoreUrl: deps.eventStoreUrl });
    await app.register(idempotencyEnginePlugin, {
      faults: deps.faults,
      leaseMs: deps.leaseMs,
      mode: deps.idempotency,
    });
    await app.register(idempotencyFastifyPlugin, { engine: app.commandEngine, ...apiIdempotencyOptions });
    await app.register(gatewayPlugin, {
      baseUrl: deps.gatewayUrl,
      ...(deps.gatewayTimeoutMs === undefined ? {} : { timeoutMs: deps.gatewayTimeoutMs }),
    });
    if (deps.projector !== 'external') await app.register(projectorPlugin);
    app.decorate('commands', createCommandRegistry({ gateway: app.gateway, faultPoint: app.faultPoint }));
    await app.register(completerPlugin, {
      registry: app.commands,
      intervalMs: deps.completerIntervalMs ?? 5_000,
    });

    await app.register(webhooksRoutes, { prefix: '/webhooks', secret: deps.gatewayWebhookSecret });
    if (deps.webAssetsDirectory) await app.register(webAssetsRoutes, { directory: deps.webAssetsDirectory });

    await app.register(async (authenticated) => {
      await authenticated.register(authPlugin, { apiKeys: createApiKeyStore(app.pg) });
      await authenticated.register(invoicesRoutes, { prefix: '/invoices' });
      await authenticated.register(ordersRoutes, { prefix: '/orders' });
      await authenticated.register(stockCountsRoutes, { prefix: '/stock-counts' });
      await authenticated.register(paymentsRoutes, { prefix: '/payments' });
      await authenticated.register(idempotencyKeysRoutes, { prefix: '/idempotency-keys' });
      await authenticated.register(menuRoutes, { prefix: '/menu' });
      await authenticated.register(consoleRoutes, { prefix: '/ops' });
    });
  } catch (error) {
    await app.close();
    throw error;
  }
  return app;
};
