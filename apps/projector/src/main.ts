import { join } from 'node:path';
import pg from 'pg';
import { collectDefaultMetrics, Registry } from 'prom-client';
import {
  assertKeyRetentionCoversRetries,
  cardRetryPolicyFromEnv,
  openEventStore,
  registerBackgroundWorkMetrics,
  registerWebhookDeliveryMetrics,
  serveMetrics,
  startBackgroundWork,
} from '@once/cafe';
import { allProjections } from '@once/read-models';
import { onceEnvironment, readEnvironment } from '@once/settings';
import { createSecretsKeyring, parseSecretsKeys, readOrCreateSecretsKeyFile } from '@once/webhooks';
import { defaultDataDirectory, resolveDatabase } from './database.js';
import { createJsonLogger } from './json-logger.js';

const env = readEnvironment(
  onceEnvironment.pick({
    DATABASE_URL: true,
    EVENTSTORE_URL: true,
    ONCE_DATA_DIR: true,
    ONCE_SECRETS_KEY: true,
    ONCE_LOG_LEVEL: true,
    ONCE_PROJECTOR_BATCH_SIZE: true,
    ONCE_PROJECTOR_POLL_MS: true,
    ONCE_PROJECTOR_LEASE_RETRY_MS: true,
    ONCE_WEBHOOK_ALLOW_HTTP: true,
    ONCE_WEBHOOK_ALLOWED_HOSTS: true,
    ONCE_WEBHOOK_RETENTION_DAYS: true,
    ONCE_SCAVENGER: true,
    ONCE_SCAVENGER_INTERVAL_MS: true,
    ONCE_EVENTSTORE_SCAVENGE_INTERVAL_SECONDS: true,
    // The completer's: the gateway card payments are resumed against, and the engine's lease and retention.
    ONCE_GATEWAY_URL: true,
    ONCE_GATEWAY_API_TOKEN: true,
    ONCE_LEASE_MS: true,
    ONCE_KEY_RETENTION_SECONDS: true,
    ONCE_COMPLETER_INTERVAL_MS: true,
    ONCE_CARD_RETRY_ATTEMPTS: true,
    ONCE_CARD_RETRY_BASE_MS: true,
    ONCE_CARD_RETRY_MAX_MS: true,
    ONCE_PROJECTOR_METRICS_PORT: true,
    ONCE_METRICS_HOST: true,
  }),
);
// A key must outlive its lease and the card settlement's retries: refuse anything shorter before starting.
assertKeyRetentionCoversRetries({
  retentionSeconds: env.ONCE_KEY_RETENTION_SECONDS,
  leaseMs: env.ONCE_LEASE_MS,
  retryPolicy: cardRetryPolicyFromEnv(env),
});

if (env.DATABASE_URL && env.ONCE_SECRETS_KEY === undefined) {
  throw new Error('ONCE_SECRETS_KEY is required with DATABASE_URL: the same value as the api’s');
}
const logger = createJsonLogger(env.ONCE_LOG_LEVEL);
// The embedded default's key lives in its data folder, beside the api's (apps/api/src/embedded/embedded-runtime.ts).
const secrets = createSecretsKeyring(
  parseSecretsKeys(
    env.ONCE_SECRETS_KEY ??
      (await readOrCreateSecretsKeyFile(join(defaultDataDirectory(env.ONCE_DATA_DIR), 'once-secrets.key'))),
  ),
);
const database = await resolveDatabase({ databaseUrl: env.DATABASE_URL, dataDirectory: env.ONCE_DATA_DIR });
const pool = new pg.Pool({
  connectionString: database.connectionString,
  max: allProjections.length * 2 + 4,
  application_name: 'once-projector',
});
pool.on('error', (error: Error & { code?: string }) =>
  logger.warn({ code: error.code, reason: error.message }, 'idle database connection failed'),
);
const store = await openEventStore({ pool, eventStoreUrl: env.EVENTSTORE_URL, migrate: true });

// `/metrics` and `/health/live` on their own listener, up before the work starts so a slow start still looks alive.
const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'once_' });
registerWebhookDeliveryMetrics(registry, pool);
const metrics = registerBackgroundWorkMetrics(registry);
const metricsServer = await serveMetrics(registry, {
  port: env.ONCE_PROJECTOR_METRICS_PORT,
  host: env.ONCE_METRICS_HOST,
});

// The projections, the webhook relay, retention and the completer: each one leader among every process (this one,
// other projectors, an in-process api).
const work = await startBackgroundWork(env, {
  pool,
  store,
  secrets,
  logger,
  onScavengerRound: (round) => metrics.scavengerRound(round),
  onServerScavenge: (round) => metrics.serverScavenge(round.startedAt),
});
logger.info(
  {
    database: database.source,
    metrics: metricsServer.url,
    projections: allProjections.map((projection) => projection.name),
    webhookRelay: 'started',
    completer: work.completer ? 'started' : 'off',
  },
  'projector started',
);

let stopping = false;
const shutdown = async (signal: string): Promise<void> => {
  if (stopping) process.exit(1);
  stopping = true;
  logger.info({ signal }, 'stopping: finishing the batches in hand and giving the leases back');
  try {
    await work.stop();
    await metricsServer.close();
    await store.close();
    await pool.end();
    await database.stop();
    process.exit(0);
  } catch (error) {
    logger.error({ err: error }, 'shutdown failed');
    process.exit(1);
  }
};
process.on('SIGTERM', (signal) => void shutdown(signal));
process.on('SIGINT', (signal) => void shutdown(signal));
