import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { migrate } from './migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrls: string[];
  }
}

const migrations = [
  { version: 1, name: 'accounts', sql: 'CREATE TABLE accounts (id int PRIMARY KEY)' },
  { version: 2, name: 'accounts name', sql: 'ALTER TABLE accounts ADD COLUMN name text' },
];

describe('migrate', () => {
  // @once/testing builds on this package, so this file makes its own database (on any of the run's servers).
  const serverUrl = inject('databaseUrls')[0] as string;
  const admin = new pg.Pool({ connectionString: serverUrl, max: 1 });
  const name = `migrate_${randomUUID().replaceAll('-', '')}`;
  const db = { pool: undefined as unknown as pg.Pool };
  beforeAll(async () => {
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    db.pool = new pg.Pool({ connectionString: url.toString() });
  });
  afterAll(async () => {
    await db.pool.end();
    // The server sees the pool's clients leave a moment after end() resolves; dropping earlier would kill them.
    while ((await admin.query('SELECT 1 FROM pg_stat_activity WHERE datname = $1', [name])).rowCount) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await admin.query(`DROP DATABASE ${name}`);
    await admin.end();
  });

  it('applies each version once, even when two processes start together', async () => {
    const results = await Promise.all([
      migrate(db.pool, 'accounts', migrations),
      migrate(db.pool, 'accounts', migrations),
      migrate(db.pool, 'accounts', migrations),
    ]);
    expect(results.flatMap((result) => result.applied).sort()).toEqual([1, 2]);
    const again = await migrate(db.pool, 'accounts', migrations);
    expect(again).toEqual({ component: 'accounts', applied: [], currentVersion: 2 });
    const columns = await db.pool.query(
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'accounts' ORDER BY column_name",
    );
    expect(columns.rows.map((row) => row.column_name)).toEqual(['id', 'name']);
  });

  it('rolls back a failing migration and leaves its version unapplied', async () => {
    const broken = [
      ...migrations,
      { version: 3, name: 'broken', sql: 'ALTER TABLE missing ADD COLUMN x int' },
    ];
    await expect(migrate(db.pool, 'accounts', broken)).rejects.toThrow();
    const versions = await db.pool.query("SELECT version FROM once_migrations WHERE component = 'accounts'");
    expect(versions.rows.map((row) => row.version).sort()).toEqual([1, 2]);
  });

  it('refuses a list with a gap in its versions', async () => {
    await expect(migrate(db.pool, 'gappy', [{ version: 2, name: 'x', sql: 'SELECT 1' }])).rejects.toThrow(
      /without gaps/,
    );
  });
});
