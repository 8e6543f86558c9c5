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
 * Creates a fresh database on the run's PostgreSQL server (see the global setup), so a test file
 * can migrate and write without seeing anyone else's rows.
 *
 * @example
 * const db = await createTestDatabase();
 * await db.pool.query('SELECT 1');
 * await db.release();
 */
export const createTestDatabase = async (options: { poolSize?: number } = {}): Promise<TestDatabase> => {
  const serverUrl = inject('databaseUrl');
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
      await withAdminClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
};

const withAdminClient = async <T>(connectionString: string, work: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};

/** A fresh tenant id, so tests sharing one database isolate by identity instead of truncating. */
export const freshTenantId = (): string => randomUUID();
