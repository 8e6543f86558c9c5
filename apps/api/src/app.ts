import { randomUUID } from 'node:crypto';
import Fastify, { LogController } from 'fastify';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { SettlementRetryPolicy } from '@once/domain/card-settlements';
import { idempotencyFastifyPlugin } from '@once/idempotency/fastify';
import { apiKeyMigrations, createApiKeyStore } from './http/auth/index.js';
import {
  createCommandHandlers,
  defaultSettlementRetryPolicy,
  problemCatalog,
  problemOfError,
} from '@once/cafe';
import type { BackgroundWorkSettings, ProcessFaultHook } from '@once/cafe';
import { onceDefaults } from '@once/settings';
import { apiVersion } from './api-version.js';
import { apiIdempotencyOptions } from './http/commands/idempotency-options.js';
import { consistencyPlugin, readWaitsPlugin } from './http/consistency/index.js';
import { healthRoutes } from './health/health.routes.js';
import { idempotencyKeysRoutes } from './idempotency-keys/idempotency-keys.routes.js';
import { invoicesRoutes } from './invoices/invoices.routes.js';
import { paymentsRoutes } from './invoices/payments.routes.js';
import { ordersRoutes } from './orders/orders.routes.js';
import { consoleRoutes } from './console/index.js';
import { menuRoutes } from './menu/index.js';
import { authPlugin } from './http/plugins/auth.plugin.js';
import { docsPlugin } from './http/plugins/docs.plugin.js';
import { eventStorePlugin } from './http/plugins/event-store.plugin.js';
import { gatewayPlugin } from './http/plugins/gateway.plugin.js';
import { idempotencyEnginePlugin } from './http/plugins/idempotency-engine.plugin.js';
import { observabilityPlugin } from './http/plugins/observability.plugin.js';
import { postgresPlugin } from './http/plugins/postgres.plugin.js';
import { problemDetailsPlugin } from './http/plugins/problem-details.plugin.js';
import { projectorPlugin } from './http/plugins/projector.plugin.js';
import { routeRolesPlugin } from './http/plugins/route-roles.plugin.js';
import { corsPlugin, deferredChildLogger, rateLimitsPlugin, withRedaction } from './http/operations/index.js';
import type { OperationsDeps } from './http/operations/index.js';
import { strictJsonPlugin } from './http/plugins/strict-json.plugin.js';
import { stockCountsRoutes } from './stock-counts/stock-counts.routes.js';
import { webAssetsRoutes } from './web/index.js';
import { webhooksRoutes } from './webhooks/webhooks.routes.js';
import { outboxPlugin } from './http/plugins/outbox.plugin.js';
import { webhookDeliveriesRoutes, webhookEndpointsRoutes } from './webhook-endpoints/index.js';
import { createSecretsKeyring, parseSecretsKeys, strictWebhookUrlPolicy } from '@once/webhooks';
import type { WebhookUrlPolicy } from '@once/webhooks';

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
  /** The gateway's bearer secret (`ONCE_GATEWAY_API_TOKEN`), sent with every charge and inquiry. */
  readonly gatewayApiToken?: string | undefined;
  /** How often an unknown card outcome is retried before the payment needs an operator; 8 attempts, 5 s–5 min apart by default. */
  readonly cardSettlementRetryPolicy?: SettlementRetryPolicy;
  /**
   * `ONCE_SECRETS_KEY`'s value: the server keys secrets are sealed with at rest (webhook endpoints' secrets) and card
   * tokens referenced under (comma-separated base64 of 32 bytes, the current key first; see `parseSecretsKeys`).
   */
  readonly secretsKey: string;
  /** The shared secret gateway webhooks are signed with; without it every webhook is refused. */
  readonly gatewayWebhookSecret?: string | undefined;
  /** Test-only fault points (see `ONCE_FAULT`). */
  readonly faults?: ProcessFaultHook;
  /** How long a crashed request holds its key before a retry may take it over (ms); 30 s by default. */
  readonly leaseMs?: number;
  /** How many completed keys are answered from memory (10,000 by default; 0: every arrival reads its key log). */
  readonly completedKeys?: number;
  /** How many aggregate events the engine keeps in memory to decide on (250,000 by default; 0: none). */
  readonly keptEvents?: number;
  /**
   * PostgreSQL streams: appends of one event-loop turn share one statement and commit, a batch kept open
   * `waitMicroseconds` past its turn while other appends are in flight (on, 0 µs, by default); `false` commits each alone.
   */
  readonly sharedCommits?: { readonly waitMicroseconds: number } | false;
  readonly logger?: FastifyServerOptions['logger'];
  /**
   * `in-process` (default) runs the read-model projections and the completer here; `external` leaves them to
   * apps/projector.
   */
  readonly projector?: 'in-process' | 'external';
  /** Pause between sweeps of the completer, which finishes keys whose client went quiet (ms); `ONCE_COMPLETER_INTERVAL_MS`'s default when omitted. */
  readonly completerIntervalMs?: number;
  /** Connections in the PostgreSQL pool; `ONCE_DATABASE_POOL_SIZE`'s default when omitted. */
  readonly poolSize?: number;
  /** Request body limit in bytes; 64 KiB by default. */
  readonly bodyLimit?: number;
  /** The longest a read waits for its `Once-Min-Position` before answering with `Once-Stale: true` (ms); `ONCE_READ_WAIT_MS`'s default when omitted. */
  readonly readWaitMs?: number;
  /** Which webhook endpoint URLs are accepted and delivered to; https to public addresses only by default. */
  readonly webhookUrlPolicy?: WebhookUrlPolicy;
  /** How long delivered webhook messages and their attempts are kept (ms); `ONCE_WEBHOOK_RETENTION_DAYS`'s default when omitted. */
  readonly webhookRetentionMs?: number;
  /** The most log events one webhook replay reads; `ONCE_WEBHOOK_REPLAY_MAX_EVENTS`'s default when omitted. */
  readonly webhookReplayMaxEvents?: number;
  /** Operations settings: retention scavenger, limits, timeouts, CORS, the metrics listener (see `OperationsDeps`). */
  readonly operations?: OperationsDeps;
  /** The built till and console (apps/till `dist/`), served at `/till` and `/console`; not served when omitted. */
  readonly webAssetsDirectory?: string;
}

const requestIdPattern = /^[\w.:-]{1,128}$/;

// A hop count trusts the nearest `count` hops, as Fastify does with a number (its types take only a function).
const trustedProxies = (
  trustProxy: OperationsDeps['trustProxy'],
): false | string[] | ((address: string, hop: number) => boolean) => {
  if (trustProxy === undefined) return false;
  if (typeof trustProxy === 'number') return (_address, hop) => hop < trustProxy;
  return [...trustProxy];
};

/**
 * The settings of the in-process background work, from what the api was built with; a setting it was not given is
 * the schema's default (`onceDefaults`), as in a process that reads an empty environment.
 */
const intervalOf = (part: OperationsDeps['scavenger']): number | undefined =>
  part ? part.intervalMs : undefined;

const backgroundSettings = (deps: AppDeps): BackgroundWorkSettings => {
  const operations = deps.operations ?? {};
  const scavenger = deps.eventStoreUrl ? operations.eventStoreScavenger : operations.scavenger;
  const retry = deps.cardSettlementRetryPolicy;
  return {
    EVENTSTORE_URL: deps.eventStoreUrl,
    ONCE_PROJECTOR_BATCH_SIZE: onceDefaults.ONCE_PROJECTOR_BATCH_SIZE,
    ONCE_PROJECTOR_POLL_MS: onceDefaults.ONCE_PROJECTOR_POLL_MS,
    ONCE_PROJECTOR_LEASE_RETRY_MS: onceDefaults.ONCE_PROJECTOR_LEASE_RETRY_MS,
    ONCE_WEBHOOK_ALLOW_HTTP: undefined,
    ONCE_WEBHOOK_ALLOWED_HOSTS: [],
    ONCE_WEBHOOK_RETENTION_DAYS:
      deps.webhookRetentionMs === undefined
        ? onceDefaults.ONCE_WEBHOOK_RETENTION_DAYS
        : deps.webhookRetentionMs / 86_400_000,
    ONCE_SCAVENGER: scavenger !== false,
    ONCE_SCAVENGER_INTERVAL_MS: intervalOf(operations.scavenger) ?? onceDefaults.ONCE_SCAVENGER_INTERVAL_MS,
    ONCE_EVENTSTORE_SCAVENGE_INTERVAL_SECONDS:
      (intervalOf(operations.eventStoreScavenger) ??
        onceDefaults.ONCE_EVENTSTORE_SCAVENGE_INTERVAL_SECONDS * 1000) / 1000,
    ONCE_GATEWAY_URL: deps.gatewayUrl,
    ONCE_GATEWAY_API_TOKEN: deps.gatewayApiToken,
    ONCE_LEASE_MS: deps.leaseMs,
    ONCE_KEY_RETENTION_SECONDS: operations.keyRetentionSeconds,
    ONCE_COMPLETER_INTERVAL_MS: deps.completerIntervalMs ?? onceDefaults.ONCE_COMPLETER_INTERVAL_MS,
    ONCE_CARD_RETRY_ATTEMPTS: retry?.maxAttempts,
    ONCE_CARD_RETRY_BASE_MS: retry?.baseDelayMs,
    ONCE_CARD_RETRY_MAX_MS: retry?.maxDelayMs,
  };
};

/** The schema the api applies at start, by component (`/health/ready` checks it is there). */
const apiMigrations = [{ component: 'api', migrations: apiKeyMigrations }];

/**
 * Builds the API: plugins and routes, wiring only. The caller listens and closes.
 *
 * @example
 * const app = await buildApp({ databaseUrl: 'postgres://…', logger: false });
 * await app.listen({ port: 3000 });
 */
export const buildApp = async (deps: AppDeps): Promise<FastifyInstance> => {
  const bodyLimit = deps.bodyLimit ?? 64 * 1024;
  const operations = deps.operations ?? {};
  const secrets = createSecretsKeyring(parseSecretsKeys(deps.secretsKey));
  const app = Fastify({
    logger: withRedaction(deps.logger ?? false),
    bodyLimit,
    requestTimeout: operations.requestTimeoutMs ?? onceDefaults.ONCE_REQUEST_TIMEOUT_MS,
    connectionTimeout: operations.connectionTimeoutMs ?? onceDefaults.ONCE_CONNECTION_TIMEOUT_MS,
    keepAliveTimeout: operations.keepAliveTimeoutMs ?? 5_000,
    // One log line per request comes from the observability plugin (with the idempotency outcome).
    logController: new LogController({ disableRequestLogging: true }),
    // A request's child logger is built when the request writes a line, not for every request.
    childLoggerFactory: deferredChildLogger,
    requestIdHeader: false,
    genReqId: (request) => {
      const offered = request.headers['x-request-id'];
      return typeof offered === 'string' && requestIdPattern.test(offered) ? offered : randomUUID();
    },
    routerOptions: { maxParamLength: 300 },
    trustProxy: trustedProxies(operations.trustProxy),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onSend', (request, reply, payload, done) => {
    // nosniff: a browser never takes a JSON answer or a problem for a script or a page.
    void reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
    done(null, payload);
  });

  // A plugin that fails half way must not leave what earlier plugins opened (the pool, the projector) running.
  try {
    await app.register(routeRolesPlugin);
    await app.register(problemDetailsPlugin, { catalog: problemCatalog, problemOf: problemOfError });
    if (operations.rateLimits) await app.register(rateLimitsPlugin, operations.rateLimits);
    if (operations.corsOrigins?.length) await app.register(corsPlugin, { origins: operations.corsOrigins });
    await app.register(strictJsonPlugin, { bodyLimit });
    await app.register(observabilityPlugin, {
      ...(operations.metricsListener ? { metricsListener: operations.metricsListener } : {}),
    });
    await app.register(consistencyPlugin, { readWaitMs: deps.readWaitMs ?? onceDefaults.ONCE_READ_WAIT_MS });
    await app.register(docsPlugin, {
      catalog: problemCatalog,
      version: apiVersion,
      rateLimits: operations.rateLimits,
    });
    await app.register(postgresPlugin, {
      connectionString: deps.databaseUrl,
      poolSize: deps.poolSize ?? onceDefaults.ONCE_DATABASE_POOL_SIZE,
      connectionTimeoutMs: operations.poolConnectionTimeoutMs ?? onceDefaults.ONCE_POOL_CONNECTION_TIMEOUT_MS,
      idleTimeoutMs: operations.poolIdleTimeoutMs ?? onceDefaults.ONCE_POOL_IDLE_TIMEOUT_MS,
      statementTimeoutMs: operations.statementTimeoutMs ?? onceDefaults.ONCE_STATEMENT_TIMEOUT_MS,
      migrations: apiMigrations,
    });
    await app.register(healthRoutes, { migrations: apiMigrations });
    await app.register(readWaitsPlugin, {
      checkLogHead: !deps.eventStoreUrl,
      maxWaiters: operations.maxWaitingReads ?? onceDefaults.ONCE_MAX_WAITING_READS,
    });

    await app.register(eventStorePlugin, {
      eventStoreUrl: deps.eventStoreUrl,
      sharedCommits: deps.sharedCommits,
    });
    await app.register(idempotencyEnginePlugin, {
      faults: deps.faults,
      leaseMs: deps.leaseMs,
      completedKeys: deps.completedKeys,
      keptEvents: deps.keptEvents,
      keyRetentionSeconds: operations.keyRetentionSeconds,
      secretReferenceKeys: secrets.referenceKeys,
    });
    await app.register(gatewayPlugin, {
      baseUrl: deps.gatewayUrl,
      apiToken: deps.gatewayApiToken,
      ...(deps.gatewayTimeoutMs === undefined ? {} : { timeoutMs: deps.gatewayTimeoutMs }),
    });
    app.decorate(
      'commandHandlers',
      createCommandHandlers({
        gateway: app.gateway,
        faultPoint: app.faultPoint,
        readStream: (stream) => app.eventStore.readStream(stream),
        retryPolicy: deps.cardSettlementRetryPolicy ?? defaultSettlementRetryPolicy,
        now: () => new Date(app.commandEngine.now()),
        secrets,
      }),
    );
    await app.register(idempotencyFastifyPlugin, {
      engine: app.commandEngine,
      handlers: app.commandHandlers,
      ...apiIdempotencyOptions,
    });
    const webhookUrlPolicy = deps.webhookUrlPolicy ?? strictWebhookUrlPolicy;
    await app.register(outboxPlugin);
    // The projections, the webhook relay, retention and the completer: here on a thread of their own, or in
    // apps/projector.
    if (deps.projector !== 'external')
      await app.register(projectorPlugin, {
        databaseUrl: deps.databaseUrl,
        secretsKey: deps.secretsKey,
        settings: backgroundSettings(deps),
        webhookUrlPolicy,
        gatewayTimeoutMs: deps.gatewayTimeoutMs,
      });

    await app.register(webhooksRoutes, {
      prefix: '/webhooks',
      secret: deps.gatewayWebhookSecret,
      retryPolicy: deps.cardSettlementRetryPolicy ?? defaultSettlementRetryPolicy,
    });
    if (deps.webAssetsDirectory) await app.register(webAssetsRoutes, { directory: deps.webAssetsDirectory });

    await app.register(async (authenticated) => {
      await authenticated.register(authPlugin, {
        apiKeys: createApiKeyStore(app.pg, {
          cacheTtlMs: operations.apiKeyCacheTtlMs ?? onceDefaults.ONCE_API_KEY_CACHE_TTL_MS,
        }),
      });
      if (operations.rateLimits) authenticated.addHook('onRequest', app.tenantRateLimit);
      await authenticated.register(invoicesRoutes, { prefix: '/invoices' });
      await authenticated.register(ordersRoutes, { prefix: '/orders' });
      await authenticated.register(stockCountsRoutes, { prefix: '/stock-counts' });
      await authenticated.register(paymentsRoutes, { prefix: '/payments' });
      await authenticated.register(idempotencyKeysRoutes, { prefix: '/idempotency-keys' });
      await authenticated.register(webhookEndpointsRoutes, {
        prefix: '/webhook-endpoints',
        urlPolicy: webhookUrlPolicy,
        secrets,
      });
      await authenticated.register(webhookDeliveriesRoutes, {
        prefix: '/webhook-endpoints',
        maxReplayEvents: deps.webhookReplayMaxEvents ?? onceDefaults.ONCE_WEBHOOK_REPLAY_MAX_EVENTS,
      });
      await authenticated.register(menuRoutes, { prefix: '/menu' });
      await authenticated.register(consoleRoutes, { prefix: '/ops' });
    });
  } catch (error) {
    await app.close();
    throw error;
  }
  return app;
};
