import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/** A database of its own for one test file, dropped when released. */
export interface TestDatabase {
  readonly connectionString: string;
  readonly pool: pg.Pool;
  /** Closes the pool and drops the database. */
  release(): Promise<void>;
}

/**
 * Creates a fresh database on this test worker's PostgreSQL server (see the global setup), so a test file
 * can migrate and write without seeing anyone else's rows.
 *
 * @example
 * const db = await createTestDatabase();
 * await db.pool.query('SELECT 1');
 * await db.release();
 */
export const createTestDatabase = async (options: { poolSize?: number } = {}): Promise<TestDatabase> => {
  const serverUrl = workerServerUrl();
  const name = `once_test_${randomUUID().replaceAll('-', '')}`;
  await withAdminClient(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const connectionString = url.toString();
  const pool = new pg.Pool({ connectionString, max: options.poolSize ?? 10 });
  return {
    connectionString,
    pool,
    release: async () => {
      await pool.end();
      await withAdminClient(serverUrl, (client) => dropDatabase(client, name));
    },
  };
};

/** The server of the worker running this file: Vitest numbers its workers from 1 (`VITEST_POOL_ID`). */
const workerServerUrl = (): string => {
  const urls = inject('databaseUrls');
  const worker = Number(process.env['VITEST_POOL_ID'] ?? 1);
  const url = urls[(Number.isInteger(worker) && worker > 0 ? worker - 1 : 0) % urls.length];
  if (url === undefined) throw new Error('the global setup provided no PostgreSQL server');
  return url;
};

const withAdminClient = async <T>(
  connectionString: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> => {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};

/**
 * Drops a database once its last connection has gone. `pool.end()` resolves before the server has seen every
 * client leave, and forcing the drop then kills those clients mid-goodbye (an uncaught error in the test worker),
 * so the drop waits a little for them and forces only the stragglers.
 */
const dropDatabase = async (client: pg.Client, name: string): Promise<void> => {
  for (let attempt = 0; attempt < 40; attempt += 1) {
    const { rowCount } = await client.query('SELECT 1 FROM pg_stat_activity WHERE datname = $1', [name]);
    if (!rowCount) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
};

/** A fresh tenant id, so tests sharing one database isolate by identity instead of truncating. */
export const freshTenantId = (): string => randomUUID();
