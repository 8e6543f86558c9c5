import pg from 'pg';
import { buildApp } from './app.js';

const connectionString = process.env.DATABASE_URL;
if (!connectionString) {
  console.error('Set DATABASE_URL, e.g. postgres://localhost:5432/points');
  process.exit(1);
}
const pool = new pg.Pool({ connectionString });
const app = await buildApp({ pool, logger: true });
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, async () => {
    await app.close();
    await pool.end();
  });
}
await app.listen({ port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1' });
