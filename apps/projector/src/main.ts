import { join } from 'node:path';
import pg from 'pg';
import {
  assertKeyRetentionCoversRetries,
  cardRetryPolicyFromEnv,
  startCommandCompleter,
} from '@once/api/completer';
import { startStreamScavenger } from '@once/event-store/postgres';
import { startServerScavenger } from '@once/event-store/eventstoredb';
import { startProjector } from '@once/projections';
import { allProjections, expiredKeySweeper, removeKeyRowsOfStreams } from '@once/read-models';
import { startWebhookRelay } from '@once/outbox';
import { onceEnvironment, readEnvironment } from '@once/settings';
import { createSecretsKeyring, parseSecretsKeys, readOrCreateSecretsKeyFile } from '@once/webhooks';
import { defaultDataDirectory, resolveDatabase } from './database.js';
import { createEventStoreFromEnv } from './event-store.js';
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
  }),
);
const cardSettlementRetryPolicy = cardRetryPolicyFromEnv(env);
// A key must outlive its lease and the card settlement's retries: refuse anything shorter before starting.
assertKeyRetentionCoversRetries({
  retentionSeconds: env.ONCE_KEY_RETENTION_SECONDS,
  leaseMs: env.ONCE_LEASE_MS,
  retryPolicy: cardSettlementRetryPolicy,
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
const store = createEventStoreFromEnv({ pool, eventStoreUrl: env.EVENTSTORE_URL });

const projector = await startProjector({
  pool,
  store,
  logger,
  projections: allProjections,
  batchSize: env.ONCE_PROJECTOR_BATCH_SIZE,
  pollIntervalMs: env.ONCE_PROJECTOR_POLL_MS,
  leaseRetryMs: env.ONCE_PROJECTOR_LEASE_RETRY_MS,
  tasks: [expiredKeySweeper(pool, store)],
});
// The outbox beside the projections: one leader among every relay (this process, other projectors, an in-process api).
const relay = await startWebhookRelay({
  pool,
  store,
  secrets,
  logger,
  urlPolicy: {
    allowHttp: env.ONCE_WEBHOOK_ALLOW_HTTP ?? false,
    allowedInternalHosts: env.ONCE_WEBHOOK_ALLOWED_HOSTS,
  },
  pollIntervalMs: env.ONCE_PROJECTOR_POLL_MS,
  leaseRetryMs: env.ONCE_PROJECTOR_LEASE_RETRY_MS,
  retentionMs: env.ONCE_WEBHOOK_RETENTION_DAYS * 86_400_000,
});
// The completer: keys whose client went quiet are finished here (one round at a time among every completer).
const completer = env.ONCE_GATEWAY_URL
  ? startCommandCompleter({
      pool,
      store,
      gatewayUrl: env.ONCE_GATEWAY_URL,
      gatewayApiToken: env.ONCE_GATEWAY_API_TOKEN,
      cardSettlementRetryPolicy,
      secrets,
      leaseMs: env.ONCE_LEASE_MS,
      keyRetentionSeconds: env.ONCE_KEY_RETENTION_SECONDS,
      intervalMs: env.ONCE_COMPLETER_INTERVAL_MS,
      logger,
    })
  : undefined;
if (!completer)
  logger.warn({}, 'no ONCE_GATEWAY_URL: abandoned keys wait for their client or another completer');
logger.info(
  {
    database: database.source,
    projections: allProjections.map((projection) => projection.name),
    webhookRelay: 'started',
    completer: completer === undefined ? 'off' : 'started',
  },
  'projector started',
);
// Retention: expired key streams are removed whole, with their key-table rows (one leader among the projectors).
const scavenger =
  env.EVENTSTORE_URL === undefined && env.ONCE_SCAVENGER !== false
    ? startStreamScavenger({
        pool,
        intervalMs: env.ONCE_SCAVENGER_INTERVAL_MS,
        onStreamsRemoved: async (streams) => {
          await removeKeyRowsOfStreams(pool, streams);
        },
        onRound: (round) =>
          round.removedStreams > 0 && logger.info({ ...round }, 'scavenger removed expired streams'),
        onError: (error) => logger.warn({ err: error }, 'scavenger round failed'),
      })
    : undefined;
// With EventStoreDB streams the server frees expired events' disk in its scavenges: one leader starts them.
const serverScavenger =
  env.EVENTSTORE_URL !== undefined && env.ONCE_SCAVENGER !== false
    ? startServerScavenger({
        store,
        pool,
        intervalMs: env.ONCE_EVENTSTORE_SCAVENGE_INTERVAL_SECONDS * 1000,
        onScavenge: (round) =>
          logger.info({ scavengeId: round.scavengeId }, 'started a scavenge on EventStoreDB'),
        onError: (error) => logger.warn({ err: error }, 'could not start a scavenge on EventStoreDB'),
      })
    : undefined;

let stopping = false;
const shutdown = async (signal: string): Promise<void> => {
  if (stopping) process.exit(1);
  stopping = true;
  logger.info({ signal }, 'stopping: finishing the batches in hand and giving the leases back');
  try {
    await scavenger?.stop();
    await serverScavenger?.stop();
    await completer?.stop();
    await relay.stop();
    await projector.stop();
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
