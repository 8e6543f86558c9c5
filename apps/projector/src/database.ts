import { resolve } from 'node:path';
import { findRunningEmbeddedPostgres, startEmbeddedPostgres } from '@once/postgres';

/** The read-model database the projector or the replay command works on. */
export interface ResolvedDatabase {
  readonly connectionString: string;
  /** Where it came from, for the first log line. */
  readonly source: 'DATABASE_URL' | 'embedded (already running)' | 'embedded (started here)';
  /** Stops an embedded server this process started; nothing otherwise. */
  stop(): Promise<void>;
}

/** The embedded default's data folder, as the api uses it. */
export const defaultDataDirectory = (dataDirectory?: string): string =>
  dataDirectory ?? resolve(process.cwd(), '.once', 'postgres');

/**
 * `DATABASE_URL` when set; otherwise the embedded default's data folder (`.once/postgres`, or `ONCE_DATA_DIR`):
 * the server the api already runs on it (found through its `postmaster.pid` and its password file), or one started
 * here.
 */
export const resolveDatabase = async (options: {
  readonly databaseUrl?: string | undefined;
  readonly dataDirectory?: string | undefined;
}): Promise<ResolvedDatabase> => {
  if (options.databaseUrl) {
    return { connectionString: options.databaseUrl, source: 'DATABASE_URL', stop: async () => undefined };
  }
  const dataDirectory = defaultDataDirectory(options.dataDirectory);
  const running = await findRunningEmbeddedPostgres(dataDirectory);
  if (running !== undefined) {
    return {
      connectionString: running.connectionString,
      source: 'embedded (already running)',
      stop: async () => undefined,
    };
  }
  const server = await startEmbeddedPostgres({ dataDirectory });
  return {
    connectionString: server.connectionString,
    source: 'embedded (started here)',
    stop: () => server.stop(),
  };
};
