import { resolve } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '@once/postgres';
import { onceEnvironment, readEnvironment } from '@once/settings';
import { ensureRegistered } from './endpoint-registration.js';
import { createKitchenDisplay } from './kitchen-display.js';
import { migrateKitchen } from './kitchen-tickets.js';

const env = readEnvironment(
  onceEnvironment.pick({
    PORT: true,
    HOST: true,
    /** The kitchen's own database; an embedded PostgreSQL in `.once/kitchen-display` when omitted. */
    DATABASE_URL: true,
    ONCE_API_URL: true,
    ONCE_API_KEY: true,
    ONCE_KITCHEN_WEBHOOK_SECRET: true,
    ONCE_KITCHEN_WEBHOOK_URL: true,
  }),
);
const port = env.PORT ?? 3200;
const host = env.HOST ?? '127.0.0.1';

const embedded = env.DATABASE_URL
  ? undefined
  : await startEmbeddedPostgres({ dataDirectory: resolve(process.cwd(), '.once', 'kitchen-display') });
const pool = new pg.Pool({ connectionString: env.DATABASE_URL ?? embedded?.connectionString, max: 10 });
const stop = async (): Promise<void> => {
  await pool.end();
  await embedded?.stop();
};

try {
  await migrateKitchen(pool);
  const webhookUrl = env.ONCE_KITCHEN_WEBHOOK_URL ?? `http://${host}:${String(port)}/webhooks`;
  const secret =
    env.ONCE_KITCHEN_WEBHOOK_SECRET ??
    (env.ONCE_API_KEY
      ? await ensureRegistered({ pool, apiUrl: env.ONCE_API_URL, apiKey: env.ONCE_API_KEY, webhookUrl })
      : undefined);
  if (!secret)
    throw new Error('set ONCE_API_KEY (the kitchen registers itself) or ONCE_KITCHEN_WEBHOOK_SECRET');
  const server = createKitchenDisplay({ pool, secrets: () => [secret] });
  server.listen(port, host);
  process.stdout.write(`kitchen display on http://${host}:${String(port)}/ (webhooks at ${webhookUrl})\n`);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.removeAllListeners(signal);
    process.once(signal, () => {
      server.close();
      server.closeAllConnections();
      stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
} catch (error) {
  await stop();
  throw error;
}
