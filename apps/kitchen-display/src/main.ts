import { resolve } from 'node:path';
import pg from 'pg';
import { z } from 'zod';
import { startEmbeddedPostgres } from '@once/postgres';
import { isWebhookSecret } from '@once/webhooks';
import { ensureRegistered } from './endpoint-registration.js';
import { createKitchenDisplay } from './kitchen-display.js';
import { migrateKitchen } from './kitchen-tickets.js';

const env = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65_535).default(3200),
    HOST: z.string().min(1).default('127.0.0.1'),
    /** The kitchen's own database; an embedded PostgreSQL in `.once/kitchen-display` when omitted. */
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//)
      .optional(),
    /** The api and an API key of the tenant to show: the kitchen registers its endpoint itself. */
    ONCE_API_URL: z.url().default('http://127.0.0.1:3000'),
    ONCE_API_KEY: z.string().min(1).optional(),
    /** Or an endpoint registered by hand: its secret (then no API key is needed). */
    ONCE_KITCHEN_WEBHOOK_SECRET: z.string().refine(isWebhookSecret, 'a whsec_ secret').optional(),
    /** Where the api reaches this display; `http://HOST:PORT/webhooks` by default. */
    ONCE_KITCHEN_WEBHOOK_URL: z.url().optional(),
  })
  .parse(process.env);

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
  const webhookUrl = env.ONCE_KITCHEN_WEBHOOK_URL ?? `http://${env.HOST}:${String(env.PORT)}/webhooks`;
  const secret =
    env.ONCE_KITCHEN_WEBHOOK_SECRET ??
    (env.ONCE_API_KEY
      ? await ensureRegistered({ pool, apiUrl: env.ONCE_API_URL, apiKey: env.ONCE_API_KEY, webhookUrl })
      : undefined);
  if (!secret)
    throw new Error('set ONCE_API_KEY (the kitchen registers itself) or ONCE_KITCHEN_WEBHOOK_SECRET');
  const server = createKitchenDisplay({ pool, secrets: () => [secret] });
  server.listen(env.PORT, env.HOST);
  process.stdout.write(
    `kitchen display on http://${env.HOST}:${String(env.PORT)}/ (webhooks at ${webhookUrl})\n`,
  );
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
