import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, startEmbeddedPostgres } from '@once/postgres';
import type { EmbeddedPostgresServer } from '@once/postgres';
import { workspaceRoot } from './workspace-root.js';

// The roles compose's PostgreSQL gets on its first start, made by the same script on a server of this test's own.
const passwords = { api: 'api-password-1', projector: 'projector-password-2', kitchen: 'kitchen-password-3' };
let server: EmbeddedPostgresServer;

const as = async <T>(
  role: 'once_api' | 'once_projector' | 'once_kitchen',
  database: string,
  use: (pool: pg.Pool) => Promise<T>,
): Promise<T> => {
  const url = new URL(server.connectionString);
  url.username = role;
  url.password = passwords[role.slice('once_'.length) as keyof typeof passwords];
  url.pathname = `/${database}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
  try {
    await pool.query('SELECT 1');
    return await use(pool);
  } finally {
    await pool.end();
  }
};
const refusedCode = (work: Promise<unknown>): Promise<string | undefined> =>
  work.then(
    () => undefined,
    (error: { code?: string }) => error.code,
  );

beforeAll(async () => {
  server = await startEmbeddedPostgres({ ephemeral: true });
  const admin = new pg.Client({ connectionString: server.connectionString });
  await admin.connect();
  await admin.query('CREATE DATABASE once');
  await admin.end();
  const url = new URL(server.connectionString);
  await promisify(execFile)('bash', [join(workspaceRoot, 'tools/docker/postgres-roles.sh')], {
    env: {
      ...process.env,
      PGHOST: url.searchParams.get('host') ?? '127.0.0.1',
      PGPORT: String(server.port),
      PGPASSWORD: decodeURIComponent(url.password),
      POSTGRES_USER: 'postgres',
      POSTGRES_DB: 'once',
      ONCE_API_POSTGRES_PASSWORD: passwords.api,
      ONCE_PROJECTOR_POSTGRES_PASSWORD: passwords.projector,
      ONCE_KITCHEN_POSTGRES_PASSWORD: passwords.kitchen,
    },
  });
}, 60_000);
afterAll(async () => {
  await server.stop();
});

describe.runIf(process.platform !== 'win32')(
  "compose's PostgreSQL roles (tools/docker/postgres-roles.sh)",
  () => {
    it('are no superusers and can create neither roles nor databases', async () => {
      const admin = new pg.Client({ connectionString: server.connectionString });
      await admin.connect();
      const { rows } = await admin.query<{ rolname: string; powers: boolean }>(
        `SELECT rolname, rolsuper OR rolcreaterole OR rolcreatedb OR rolbypassrls OR rolreplication AS powers
         FROM pg_roles WHERE rolname LIKE 'once\\_%' ORDER BY rolname`,
      );
      await admin.end();
      expect(rows).toEqual([
        { rolname: 'once_api', powers: false },
        { rolname: 'once_kitchen', powers: false },
        { rolname: 'once_projector', powers: false },
      ]);
    });

    it("let the api and the projector each migrate their own tables, and use each other's only as they need", async () => {
      await as('once_api', 'once', async (api) => {
        await migrate(api, 'api-test', [
          {
            version: 1,
            name: 'outbox',
            sql: 'CREATE TABLE outbox_test (id bigserial PRIMARY KEY, state text)',
          },
        ]);
        await api.query("INSERT INTO outbox_test (state) VALUES ('pending')");
      });
      await as('once_projector', 'once', async (projector) => {
        await migrate(projector, 'projector-test', [
          { version: 1, name: 'read model', sql: 'CREATE TABLE read_model_test (id text PRIMARY KEY)' },
        ]);
        await projector.query("INSERT INTO read_model_test VALUES ('a')");
        // The relay and the completer change the api's rows...
        await projector.query("UPDATE outbox_test SET state = 'delivered'");
        await projector.query("INSERT INTO outbox_test (state) VALUES ('pending')");
        // ...but cannot change its tables.
        expect(await refusedCode(projector.query('ALTER TABLE outbox_test ADD COLUMN x text'))).toBe('42501');
        expect(await refusedCode(projector.query('DROP TABLE outbox_test'))).toBe('42501');
      });
      await as('once_api', 'once', async (api) => {
        expect((await api.query('SELECT id FROM read_model_test')).rows).toEqual([{ id: 'a' }]);
        expect(await refusedCode(api.query("INSERT INTO read_model_test VALUES ('b')"))).toBe('42501');
        expect(await refusedCode(api.query('DELETE FROM read_model_test'))).toBe('42501');
      });
    });

    it('keep the kitchen display in a database of its own', async () => {
      expect(await refusedCode(as('once_kitchen', 'once', async () => undefined))).toBe('42501');
      await as('once_kitchen', 'once_kitchen', async (kitchen) => {
        await kitchen.query('CREATE TABLE tickets_test (id text PRIMARY KEY)');
      });
      expect(await refusedCode(as('once_api', 'once_kitchen', async () => undefined))).toBe('42501');
    });
  },
);
