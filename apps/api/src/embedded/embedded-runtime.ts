import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { findFreePort, startEmbeddedPostgres } from '@once/postgres';
import type { EmbeddedPostgresServer } from '@once/postgres';

/**
 * Where the embedded default keeps its server key (`ONCE_SECRETS_KEY`'s value), generated on the first start: in its
 * data folder, readable by its owner only.
 */
export const embeddedSecretsKeyFile = (dataDirectory: string): string =>
  join(dataDirectory, 'once-secrets.key');

/** The preferred port of the embedded PostgreSQL (a free one is used when it is taken). */
export const embeddedPostgresPort = 54329;

const portIsFree = (port: number): Promise<boolean> =>
  new Promise((resolvePort) => {
    const probe = createServer();
    probe.once('error', () => resolvePort(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolvePort(true)));
  });

/**
 * Starts the embedded default's PostgreSQL: data in `.once/postgres` (kept between runs, fsync on: this is the
 * user's data), on port 54329 when free.
 *
 * @example
 * const postgres = await startEmbeddedDefaultPostgres();
 * await postgres.stop();
 */
export const startEmbeddedDefaultPostgres = async (
  options: { dataDirectory?: string; onLog?: (line: string) => void } = {},
): Promise<EmbeddedPostgresServer> => {
  const dataDirectory = options.dataDirectory ?? resolve(process.cwd(), '.once', 'postgres');
  const port = (await portIsFree(embeddedPostgresPort)) ? embeddedPostgresPort : await findFreePort();
  return startEmbeddedPostgres({ dataDirectory, port, ...(options.onLog ? { onLog: options.onLog } : {}) });
};
