import { startEmbeddedPostgres } from '@once/postgres';
import type { EmbeddedPostgresServer } from '@once/postgres';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser connection strings of the run's PostgreSQL servers, one for each test worker. */
    databaseUrls: string[];
  }
}

interface SharedServer {
  users: number;
  servers: Promise<(EmbeddedPostgresServer | undefined)[]>;
}

// Global setups of several tier projects run in one process; they share one server for the whole run.
const registry = globalThis as typeof globalThis & { onceTestPostgres?: SharedServer };

/**
 * Vitest global setup: real PostgreSQL for the whole run, one server for each test worker. A server's snapshots span
 * all its databases, so one worker's open transaction would hold back another's reads of the global order (which
 * never pass a transaction that may still commit); a server each keeps the workers' files apart. Uses
 * `TEST_DATABASE_URL` when set (the config then runs one worker), otherwise starts embedded PostgreSQL on free ports
 * with fresh data folders, and stops them at the end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env['TEST_DATABASE_URL'];
  const workers = Math.max(1, project.globalConfig.maxWorkers);
  const shared = (registry.onceTestPostgres ??= {
    users: 0,
    servers: external
      ? Promise.resolve([undefined])
      : Promise.all(Array.from({ length: workers }, () => startEmbeddedPostgres({ ephemeral: true }))),
  });
  shared.users += 1;
  const servers = await shared.servers;
  project.provide(
    'databaseUrls',
    servers.map((server) => external ?? (server as EmbeddedPostgresServer).connectionString),
  );

  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    registry.onceTestPostgres = undefined;
    await Promise.all(servers.map((server) => server?.stop()));
  };
}
