import fp from 'fastify-plugin';
import pg from 'pg';
import { migrate } from '@once/postgres';
import type { Migration } from '@once/postgres';

declare module 'fastify' {
  interface FastifyInstance {
    /** The PostgreSQL pool: api keys, read models and (in PostgreSQL mode) the event streams. */
    pg: pg.Pool;
  }
}

export interface PostgresPluginOptions {
  readonly connectionString: string;
  /** Connections in the pool (`ONCE_DATABASE_POOL_SIZE`). */
  readonly poolSize: number;
  /** The longest a query waits for a free connection before it fails (ms); unbounded when omitted. */
  readonly connectionTimeoutMs?: number;
  /** How long a connection may stay idle before the pool closes it (ms; 0: never); pg's 10 s when omitted. */
  readonly idleTimeoutMs?: number;
  /** The server cancels any statement running longer (ms); unbounded when omitted. */
  readonly statementTimeoutMs?: number;
  /** Schema owned by each component, applied in this order at start (safe when replicas start together). */
  readonly migrations: readonly { readonly component: string; readonly migrations: readonly Migration[] }[];
}

/** Opens the pool, applies pending migrations, and ends the pool when the app closes. */
export const postgresPlugin = fp<PostgresPluginOptions>(
  async (app, { connectionString, poolSize, migrations, connectionTimeoutMs, idleTimeoutMs, statementTimeoutMs }) => {
    const pool = new pg.Pool({
      connectionString,
      max: poolSize,
      // What pg_stat_activity shows for these connections (a connection string's own application_name wins).
      application_name: 'once-api',
      ...(connectionTimeoutMs === undefined ? {} : { connectionTimeoutMillis: connectionTimeoutMs }),
      ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMillis: idleTimeoutMs }),
      ...(statementTimeoutMs === undefined ? {} : { statement_timeout: statementTimeoutMs }),
    });
    // The error carries its whole client; the code and message say what happened.
    pool.on('error', (error: Error & { code?: string }) =>
      app.log.warn({ code: error.code, reason: error.message }, 'idle PostgreSQL client failed'),
    );
    app.addHook('onClose', async () => pool.end());
    for (const { component, migrations: list } of migrations) await migrate(pool, component, list);
    app.decorate('pg', pool);
  },
  { name: 'once-postgres', fastify: '5.x' },
);
