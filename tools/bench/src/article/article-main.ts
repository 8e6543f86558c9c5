import { z } from 'zod';
import { onceEnvironment } from '@once/settings';
import { buildArticleApp } from './article-app.js';

/** The article peer as its own process (like the api), so neither side shares an event loop with the load generator. */
const env = z
  .object({
    DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//),
    PORT: z.coerce.number().int().min(0).max(65_535),
    HOST: z.string().min(1).default('127.0.0.1'),
    ONCE_DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200),
    // The api's own setting and default: both sides keep idle connections as long.
    ONCE_POOL_IDLE_TIMEOUT_MS: onceEnvironment.shape.ONCE_POOL_IDLE_TIMEOUT_MS,
  })
  .parse(process.env);

const app = await buildArticleApp({
  databaseUrl: env.DATABASE_URL,
  poolSize: env.ONCE_DATABASE_POOL_SIZE,
  idleTimeoutMs: env.ONCE_POOL_IDLE_TIMEOUT_MS,
});
app.get('/health', async () => ({ status: 'ok' }));
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.removeAllListeners(signal);
  process.on(signal, () => {
    void app.close().then(() => process.exit(0));
  });
}
await app.listen({ port: env.PORT, host: env.HOST });
