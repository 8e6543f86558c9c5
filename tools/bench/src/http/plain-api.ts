import { buildApp } from '@once/api';
import { createPlainEngine } from './plain-engine.js';

/**
 * The HTTP bench's unkeyed api: the api as `buildApp` makes it, with the plain engine in place of the idempotency
 * engine. Spawned by `http.bench.ts` on the same database as the keyed api.
 */
const port = Number(process.env['PORT'] ?? '0');
const host = process.env['HOST'] ?? '127.0.0.1';
const databaseUrl = process.env['DATABASE_URL'];
if (databaseUrl === undefined) throw new Error('DATABASE_URL is required');

const app = await buildApp({
  databaseUrl,
  gatewayUrl: process.env['ONCE_GATEWAY_URL'] ?? 'http://127.0.0.1:9',
  createEngine: createPlainEngine,
  logger: { level: 'warn' },
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    void app.close().then(() => process.exit(0));
  });
}
await app.listen({ port, host });
