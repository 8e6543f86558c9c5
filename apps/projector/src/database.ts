import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { embeddedConnectionString, startEmbeddedPostgres } from '@once/postgres';

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
 * the server the api already runs on it (found through its `postmaster.pid`), or one started here.
 */
export const resolveDatabase = async (options: {
  readonly databaseUrl?: string | undefined;
  readonly dataDirectory?: string | undefined;
}): Promise<ResolvedDatabase> => {
  if (options.databaseUrl) {
    return { connectionString: options.databaseUrl, source: 'DATABASE_URL', stop: async () => undefined };
  }
  const dataDirectory = defaultDataDirectory(options.dataDirectory);
  const running = await runningServer(dataDirectory);
  if (running !== undefined) {
    return {
      connectionString: embeddedConnectionString(running.port, running.socketDirectory),
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

/**
 * A live server on this data folder, from its `postmaster.pid`: its port (line 4) and its socket folder (line 5,
 * empty when it listens on TCP alone), if its process is alive.
 */
const runningServer = async (
  dataDirectory: string,
): Promise<{ port: number; socketDirectory: string } | undefined> => {
  const text = await readFile(join(dataDirectory, 'postmaster.pid'), 'utf8').catch(() => undefined);
  if (!text) return undefined;
  const [pidLine, , , portLine, socketLine = ''] = text.split('\n');
  const pid = Number(pidLine);
  const port = Number(portLine);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || port <= 0) return undefined;
  const server = { port, socketDirectory: socketLine.trim() };
  try {
    process.kill(pid, 0);
    return server;
  } catch (error) {
    // EPERM: alive, but owned by another user (the server runs as `postgres` when started by root).
    return (error as { code?: string }).code === 'EPERM' ? server : undefined;
  }
};
