import { register } from 'node:module';
import { extname } from 'node:path';
import type { IdempotencyEngine } from '@once/idempotency';
import { onceEnvironment, readEnvironment } from '@once/settings';
import { isPlainEngine } from './plain-engine.js';

/**
 * The HTTP bench's unkeyed api: the api as `buildApp` makes it, with the plain engine in place of the idempotency
 * engine, and the settings the keyed api's main reads from the same environment (pool size, projector, limits,
 * metrics), so the two differ in the engine alone. Spawned by `http.bench.ts` beside the keyed api. The api has no
 * option for another engine: the engine is swapped from outside, where its plugin imports it (`plain-engine-hooks`),
 * so the api is loaded only after those hooks are registered.
 */
register(`./plain-engine-hooks${extname(import.meta.url)}`, import.meta.url);
const { buildApp, operationsFromEnv, operationsSettings } = await import('@once/api');

const env = readEnvironment(
  onceEnvironment.pick({
    PORT: true,
    HOST: true,
    DATABASE_URL: true,
    ONCE_SECRETS_KEY: true,
    ONCE_LOG_LEVEL: true,
    ONCE_DATABASE_POOL_SIZE: true,
    ONCE_GATEWAY_URL: true,
    ONCE_PROJECTOR: true,
    ONCE_COMPLETER_INTERVAL_MS: true,
    ...operationsSettings,
  }),
);
if (env.DATABASE_URL === undefined) throw new Error('DATABASE_URL is required');
if (env.ONCE_SECRETS_KEY === undefined) throw new Error('ONCE_SECRETS_KEY is required');

const app = await buildApp({
  databaseUrl: env.DATABASE_URL,
  secretsKey: env.ONCE_SECRETS_KEY,
  gatewayUrl: env.ONCE_GATEWAY_URL ?? 'http://127.0.0.1:9',
  projector: env.ONCE_PROJECTOR,
  completerIntervalMs: env.ONCE_COMPLETER_INTERVAL_MS,
  poolSize: env.ONCE_DATABASE_POOL_SIZE,
  operations: operationsFromEnv(env),
  logger: { level: env.ONCE_LOG_LEVEL },
});
if (!isPlainEngine(app.getDecorator<IdempotencyEngine>('commandEngine'))) {
  await app.close();
  throw new Error(
    'the api was built with its own engine: the plain engine hooks did not reach its engine plugin',
  );
}
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    void app.close().then(() => process.exit(0));
  });
}
await app.listen({ port: env.PORT ?? 0, host: env.HOST ?? '127.0.0.1' });
