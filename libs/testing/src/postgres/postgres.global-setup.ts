import { startEmbeddedPostgres } from '@once/postgres';
import type { EmbeddedPostgresServer } from '@once/postgres';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser connection string of the run's PostgreSQL server. */
    databaseUrl: string;
  }
}

interface SharedServer {
  users: number;
  server: Promise<EmbeddedPostgresServer | undefined>;
}

// Global setups of several tier projects run in one process; they share one server for the whole run.
const registry = globalThis as typeof globalThis & { onceTestPostgres?: SharedServer };

/**
 * Vitest global setup: one real PostgreSQL for the whole run. Uses `TEST_DATABASE_URL` when set,
 * otherwise starts embedded PostgreSQL on a free port with a fresh data folder, and stops it at the end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env['TEST_DATABASE_URL'];
  const shared = (registry.onceTestPostgres ??= {
    users: 0,
    server: external ? Promise.resolve(undefined) : startEmbeddedPostgres({ ephemeral: true }),
  });
  shared.users += 1;
  const server = await shared.server;
  project.provide('databaseUrl', external ?? (server as EmbeddedPostgresServer).connectionString);

  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    registry.onceTestPostgres = undefined;
    await server?.stop();
  };
}
