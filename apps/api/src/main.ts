import { z } from 'zod';
import { buildApp } from './app.js';
import { createApiKeyStore } from './auth/index.js';
import { demoBanner } from './embedded/banner.js';
import { seedDemoTenant } from './embedded/demo-tenant.js';
import { startEmbeddedRuntime } from './embedded/embedded-runtime.js';
import type { EmbeddedRuntime } from './embedded/embedded-runtime.js';
import { createProcessFaultHook, parseProcessFault } from './faults/index.js';

const env = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
    HOST: z.string().min(1).default('127.0.0.1'),
    DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//).optional(),
    EVENTSTORE_URL: z.string().regex(/^(esdb|kurrentdb)(\+discover)?:\/\//).optional(),
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
    /** Where the embedded default keeps PostgreSQL's data (default `.once/postgres`). */
    ONCE_DATA_DIR: z.string().min(1).optional(),
  })
  .parse(process.env);

const embedded: EmbeddedRuntime | undefined =
  env.DATABASE_URL && env.GATEWAY_URL
    ? undefined
    : await startEmbeddedRuntime({
        ...(env.ONCE_DATA_DIR ? { dataDirectory: env.ONCE_DATA_DIR } : {}),
        ...(env.GATEWAY_URL ? {} : { gateway: { apiPort: env.PORT } }),
      });

const databaseUrl = env.DATABASE_URL ?? (embedded as EmbeddedRuntime).postgres.connectionString;
const gatewayUrl = env.GATEWAY_URL ?? (embedded?.gateway?.url as string);

const app = await buildApp({
  databaseUrl,
  ...(env.EVENTSTORE_URL ? { eventStoreUrl: env.EVENTSTORE_URL } : {}),
  gatewayUrl,
  gatewayWebhookSecret: env.GATEWAY_WEBHOOK_SECRET ?? embedded?.gateway?.webhookSecret,
  idempotency: env.ONCE_BENCH_PLAIN ? 'off' : 'on',
  faults: createProcessFaultHook(env.ONCE_FAULT, () => process.kill(process.pid, 'SIGKILL')),
  logger: { level: env.LOG_LEVEL },
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
    await embedded?.stop();
    process.exit(0);
  } catch (error) {
    app.log.error({ err: error }, 'shutdown failed');
    process.exit(1);
  }
};
process.on('SIGTERM', (signal) => void shutdown(signal));
process.on('SIGINT', (signal) => void shutdown(signal));

try {
  await app.listen({ port: env.PORT, host: env.HOST });
} catch (error) {
  app.log.error({ err: error }, 'could not listen');
  await app.close();
  await embedded?.stop();
  process.exit(1);
}

if (embedded && !env.DATABASE_URL) {
  const demo = await seedDemoTenant(createApiKeyStore(app.pg));
  console.log(demoBanner({ url: `http://${env.HOST}:${String(env.PORT)}`, demo, dataDirectory: embedded.postgres.dataDirectory }));
}
