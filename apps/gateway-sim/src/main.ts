import pg from 'pg';
import { onceEnvironment, readEnvironment } from '@once/settings';
import { createPostgresEventStore } from '@once/event-store/postgres';
import { createEventSourcedChargeLedger } from './charges/index.js';
import { buildGatewaySim } from './gateway-sim.js';

const env = readEnvironment(
  onceEnvironment.pick({
    PORT: true,
    HOST: true,
    ONCE_LOG_LEVEL: true,
    ONCE_GATEWAY_WEBHOOK_URL: true,
    ONCE_GATEWAY_WEBHOOK_SECRET: true,
    ONCE_GATEWAY_FAULT_TOKEN: true,
    ONCE_GATEWAY_API_TOKEN: true,
    ONCE_GATEWAY_DATABASE_URL: true,
  }),
);
const host = env.HOST ?? '0.0.0.0';

const pool = env.ONCE_GATEWAY_DATABASE_URL
  ? new pg.Pool({ connectionString: env.ONCE_GATEWAY_DATABASE_URL })
  : undefined;
const loopback = ['127.0.0.1', 'localhost', '::1'].includes(host);
if (!loopback && env.ONCE_GATEWAY_API_TOKEN === undefined) {
  console.error(
    `gateway-sim: set ONCE_GATEWAY_API_TOKEN (16+ characters) to listen on ${host}: charges need it`,
  );
  process.exit(1);
}
const { app } = buildGatewaySim({
  logger: { level: env.ONCE_LOG_LEVEL },
  faultAccess: env.ONCE_GATEWAY_FAULT_TOKEN
    ? { token: env.ONCE_GATEWAY_FAULT_TOKEN }
    : loopback
      ? 'open'
      : 'closed',
  ...(env.ONCE_GATEWAY_API_TOKEN ? { apiToken: env.ONCE_GATEWAY_API_TOKEN } : {}),
  ...(pool ? { ledger: createEventSourcedChargeLedger(createPostgresEventStore(pool)) } : {}),
  ...(env.ONCE_GATEWAY_WEBHOOK_URL && env.ONCE_GATEWAY_WEBHOOK_SECRET
    ? { webhook: { url: env.ONCE_GATEWAY_WEBHOOK_URL, secret: env.ONCE_GATEWAY_WEBHOOK_SECRET } }
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

await app.listen({ port: env.PORT ?? 4010, host });
