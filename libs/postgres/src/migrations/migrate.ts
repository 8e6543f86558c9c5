import type { Pool, PoolClient } from 'pg';

/** One versioned schema change of a component. Versions start at 1 and never change once released. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** What `migrate` did. */
export interface MigrationResult {
  readonly component: string;
  readonly applied: readonly number[];
  readonly currentVersion: number;
}

const migrationsLockKey = 0x6f6e6365; // 'once'

/**
 * Applies a component's pending migrations in version order, each in its own transaction.
 * Safe when several processes start together: a transaction-scoped advisory lock serialises them,
 * and a migration that another process already applied is skipped.
 *
 * @param pool where to apply them
 * @param component the owner of the migrations, e.g. `event-store`
 * @param migrations the full list, in any order
 * @example
 * await migrate(pool, 'event-store', [{ version: 1, name: 'streams', sql: 'CREATE TABLE …' }]);
 */
export const migrate = async (
  pool: Pool,
  component: string,
  migrations: readonly Migration[],
): Promise<MigrationResult> => {
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  assertContiguous(component, ordered);
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await withLockedTransaction(client, async () => {
      await client.query(`CREATE TABLE IF NOT EXISTS once_migrations (
        component text NOT NULL,
        version integer NOT NULL,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (component, version))`);
    });
    for (const migration of ordered) {
      await withLockedTransaction(client, async () => {
        const done = await client.query(
          'SELECT 1 FROM once_migrations WHERE component = $1 AND version = $2',
          [component, migration.version],
        );
        if (done.rowCount) return;
        await client.query(migration.sql);
        await client.query('INSERT INTO once_migrations (component, version, name) VALUES ($1, $2, $3)', [
          component,
          migration.version,
          migration.name,
        ]);
        applied.push(migration.version);
      });
    }
  } finally {
    client.release();
  }
  return { component, applied, currentVersion: ordered.at(-1)?.version ?? 0 };
};

const withLockedTransaction = async (client: PoolClient, work: () => Promise<void>): Promise<void> => {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [migrationsLockKey]);
    await work();
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
};

const assertContiguous = (component: string, ordered: readonly Migration[]): void => {
  ordered.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(
        `${component} migrations must be numbered 1..n without gaps; found ${migration.version} at ${index + 1}`,
      );
    }
  });
};
