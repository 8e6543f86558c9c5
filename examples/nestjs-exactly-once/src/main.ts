import { NestFactory } from '@nestjs/core';
import pg from 'pg';
import { AppModule } from './app.module.js';

const connectionString = process.env['DATABASE_URL'];
if (!connectionString) {
  console.error('Set DATABASE_URL, e.g. postgres://localhost:5432/points');
  process.exit(1);
}
const pool = new pg.Pool({ connectionString });
const app = await NestFactory.create(AppModule.over(pool), { logger: ['error', 'warn'] });
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, async () => {
    await app.close();
    await pool.end();
  });
}
await app.listen(Number(process.env['PORT'] ?? 3000), process.env['HOST'] ?? '127.0.0.1');
console.log(`Server listening at ${await app.getUrl()}`);
