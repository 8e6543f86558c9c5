import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { findFreePort, findRunningEmbeddedPostgres, startEmbeddedPostgres } from '@once/postgres';
import type { EmbeddedPostgresServer } from '@once/postgres';

/**
 * Where the embedded default keeps its server key (`ONCE_SECRETS_KEY`'s value), generated on the first start: in its
 * data folder, readable by its owner only.
 */
export const embeddedSecretsKeyFile = (dataDirectory: string): string =>
  join(dataDirectory, 'once-secrets.key');

/** The preferred port of the embedded PostgreSQL (a free one is used when it is taken). */
export const embeddedPostgresPort = 54329;

const embeddedDataDirectory = (dataDirectory?: string): string =>
  dataDirectory ?? resolve(process.cwd(), '.once', 'postgres');

const portIsFree = (port: number): Promise<boolean> =>
  new Promise((resolvePort) => {
    const probe = createServer();
    probe.once('error', () => resolvePort(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolvePort(true)));
  });

/**
 * Starts the embedded default's PostgreSQL: data in `.once/postgres` (kept between runs, fsync on: this is the
 * user's data), reached on its Unix-domain socket only (named for port 54329 when that port is free), as a superuser
 * whose random password is kept in the data folder.
 *
 * @example
 * const postgres = await startEmbeddedDefaultPostgres();
 * await postgres.stop();
 */
export const startEmbeddedDefaultPostgres = async (
  options: { dataDirectory?: string; onLog?: (line: string) => void } = {},
): Promise<EmbeddedPostgresServer> => {
  const dataDirectory = embeddedDataDirectory(options.dataDirectory);
  const port = (await portIsFree(embeddedPostgresPort)) ? embeddedPostgresPort : await findFreePort();
  return startEmbeddedPostgres({ dataDirectory, port, ...(options.onLog ? { onLog: options.onLog } : {}) });
};

/**
 * The embedded default's server for a command that runs beside the api (`npm run keys`): the one already running
 * on the data folder, or one started for the command (stopped again by `stop`).
 *
 * @example
 * const postgres = await connectToEmbeddedDefaultPostgres();
 * await postgres.stop();
 */
export const connectToEmbeddedDefaultPostgres = async (
  options: { dataDirectory?: string } = {},
): Promise<{ readonly connectionString: string; stop(): Promise<void> }> => {
  const dataDirectory = embeddedDataDirectory(options.dataDirectory);
  const running = await findRunningEmbeddedPostgres(dataDirectory);
  if (running) return { connectionString: running.connectionString, stop: async () => undefined };
  const started = await startEmbeddedDefaultPostgres({ dataDirectory });
  return { connectionString: started.connectionString, stop: () => started.stop() };
};
