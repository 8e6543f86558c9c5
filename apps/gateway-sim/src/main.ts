import pg from 'pg';
import { z } from 'zod';
import { isWebhookSecret } from '@once/webhooks';
import { createPostgresEventStore } from '@once/event-store/postgres';
import { createEventSourcedChargeLedger } from './charges/index.js';
import { buildGatewaySim } from './gateway-sim.js';

const env = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65_535).default(4010),
    HOST: z.string().default('0.0.0.0'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    WEBHOOK_URL: z.url().optional(),
    /** A Standard Webhooks secret: `whsec_` + base64 of 24 to 64 random bytes. */
    WEBHOOK_SECRET: z
      .string()
      .refine(isWebhookSecret, 'a whsec_ secret (base64 of 24 to 64 bytes)')
      .optional(),
    /** The token the fault controls need (`gateway-fault-token`). Without it they are open on loopback only. */
    ONCE_GATEWAY_FAULT_TOKEN: z.string().min(16).optional(),
    /** Keep charges and keys in PostgreSQL (a database of the gateway's own); in memory when omitted. */
    GATEWAY_DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//)
      .optional(),
  })
  .parse(process.env);

const pool = env.GATEWAY_DATABASE_URL
  ? new pg.Pool({ connectionString: env.GATEWAY_DATABASE_URL })
  : undefined;
const loopback = ['127.0.0.1', 'localhost', '::1'].includes(env.HOST);
const { app } = buildGatewaySim({
  logger: { level: env.LOG_LEVEL },
  faultAccess: env.ONCE_GATEWAY_FAULT_TOKEN
    ? { token: env.ONCE_GATEWAY_FAULT_TOKEN }
    : loopback
      ? 'open'
      : 'closed',
  ...(pool ? { ledger: createEventSourcedChargeLedger(createPostgresEventStore(pool)) } : {}),
  ...(env.WEBHOOK_URL && env.WEBHOOK_SECRET
    ? { webhook: { url: env.WEBHOOK_URL, secret: env.WEBHOOK_SECRET } }
    : {}),
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    app.log.info({ signal }, 'shutting down');
    app
      .close()
      .then(() => pool?.end())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  });
}

await app.listen({ port: env.PORT, host: env.HOST });
