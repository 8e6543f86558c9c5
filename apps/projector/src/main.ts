import pg from 'pg';
import { z } from 'zod';
import { eventStoreDbConnectionStringProblem, startStreamScavenger } from '@once/event-store';
import { allProjections, removeKeyRowsOfStreams, startProjector } from '@once/projections';
import { startWebhookRelay } from '@once/outbox';
import { resolveDatabase } from './database.js';
import { createEventStoreFromEnv } from './event-store.js';
import { createJsonLogger } from './json-logger.js';

const env = z
  .object({
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//)
      .optional(),
    // Validated by the client's own parser: `esdb://` or `esdb+discover://` (client 6.x reads no `kurrentdb://`).
    EVENTSTORE_URL: z
      .string()
      .refine((url) => eventStoreDbConnectionStringProblem(url) === undefined, {
        error: (issue) => eventStoreDbConnectionStringProblem(String(issue.input)),
      })
      .optional(),
    ONCE_DATA_DIR: z.string().min(1).optional(),
    LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
    PROJECTOR_BATCH_SIZE: z.coerce.number().int().min(1).max(50_000).default(2000),
    PROJECTOR_POLL_MS: z.coerce.number().int().min(1).max(60_000).default(100),
    PROJECTOR_LEASE_RETRY_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
    /** Webhook endpoints may use http to loopback hosts (development only). */
    ONCE_WEBHOOK_ALLOW_HTTP: z.enum(['0', '1', 'true', 'false']).default('0'),
    /** Webhook endpoints may resolve to loopback, private and link-local addresses (a private network deployment). */
    ONCE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: z.enum(['0', '1', 'true', 'false']).default('0'),
    /** `0` turns the retention scavenger off (it runs only with PostgreSQL streams). */
    ONCE_SCAVENGER: z.enum(['0', '1']).default('1'),
    ONCE_SCAVENGER_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
  })
  .parse(process.env);

const logger = createJsonLogger(env.LOG_LEVEL);
const database = await resolveDatabase({ databaseUrl: env.DATABASE_URL, dataDirectory: env.ONCE_DATA_DIR });
const pool = new pg.Pool({ connectionString: database.connectionString, max: allProjections.length * 2 + 4 });
pool.on('error', (error: Error & { code?: string }) =>
  logger.warn({ code: error.code, reason: error.message }, 'idle database connection failed'),
);
const store = createEventStoreFromEnv({ pool, eventStoreUrl: env.EVENTSTORE_URL });

const projector = await startProjector({
  pool,
  store,
  logger,
  projections: allProjections,
  batchSize: env.PROJECTOR_BATCH_SIZE,
  pollIntervalMs: env.PROJECTOR_POLL_MS,
  leaseRetryMs: env.PROJECTOR_LEASE_RETRY_MS,
});
const isOn = (flag: string): boolean => flag === '1' || flag === 'true';
// The outbox beside the projections: one leader among every relay (this process, other projectors, an in-process api).
const relay = await startWebhookRelay({
  pool,
  store,
  logger,
  urlPolicy: {
    allowHttp: isOn(env.ONCE_WEBHOOK_ALLOW_HTTP),
    allowPrivateNetworks: isOn(env.ONCE_WEBHOOK_ALLOW_PRIVATE_NETWORKS),
  },
  pollIntervalMs: env.PROJECTOR_POLL_MS,
  leaseRetryMs: env.PROJECTOR_LEASE_RETRY_MS,
});
logger.info(
  {
    database: database.source,
    projections: allProjections.map((projection) => projection.name),
    webhookRelay: 'started',
  },
  'projector started',
);
// Retention: expired key streams are removed whole, with their key-table rows (one leader among the projectors).
const scavenger =
  env.EVENTSTORE_URL === undefined && env.ONCE_SCAVENGER === '1'
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

let stopping = false;
const shutdown = async (signal: string): Promise<void> => {
  if (stopping) process.exit(1);
  stopping = true;
  logger.info({ signal }, 'stopping: finishing the batches in hand and giving the leases back');
  try {
    await scavenger?.stop();
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
