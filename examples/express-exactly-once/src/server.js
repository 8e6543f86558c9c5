import pg from 'pg';
import { buildApp } from './app.js';

const connectionString = process.env.DATABASE_URL;
if (!connectionString) {
  console.error('Set DATABASE_URL, e.g. postgres://localhost:5432/points');
  process.exit(1);
}
const pool = new pg.Pool({ connectionString });
const { app, background } = buildApp({ pool, onError: (error) => console.error(error) });
const host = process.env.HOST ?? '127.0.0.1';
const server = app.listen(Number(process.env.PORT ?? 3000), host, (error) => {
  if (error) throw error;
  console.log(`Server listening at http://${host}:${server.address().port}`);
});
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    server.close(async () => {
      await background.stop();
      await pool.end();
    });
  });
}
