import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startEmbeddedPostgres } from '@once/postgres';
import type { EmbeddedPostgresServer } from '@once/postgres';

/** The run's PostgreSQL, which the chaos tool can kill -9 and start again on the same data. */
export interface PostgresNode {
  readonly connectionString: string;
  readonly port: number;
  /** The running postmaster's process id (from its `postmaster.pid`). */
  postmasterPid(): Promise<number>;
  /** SIGKILL to the postmaster, then a restart on the same data folder and port (crash recovery replays the WAL). */
  crashAndRestart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const terminatingSignals = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK'] as const;

/**
 * Starts the embedded server and takes off the signal hooks its library installs when first loaded: they end the
 * process as soon as that one server stopped, before the run could stop its other children (and finish a cluster
 * kill in progress). The run stops the server itself, on a signal too.
 */
const startWithoutSignalHooks = async (
  options: Parameters<typeof startEmbeddedPostgres>[0],
): Promise<EmbeddedPostgresServer> => {
  const before = new Map(terminatingSignals.map((signal) => [signal, new Set(process.listeners(signal))]));
  try {
    return await startEmbeddedPostgres(options);
  } finally {
    for (const signal of terminatingSignals) {
      for (const listener of process.listeners(signal)) {
        if (!before.get(signal)?.has(listener)) process.removeListener(signal, listener);
      }
    }
  }
};

const postmasterPid = async (dataDirectory: string): Promise<number> =>
  Number((await readFile(join(dataDirectory, 'postmaster.pid'), 'utf8')).split('\n')[0]);

/**
 * Starts PostgreSQL in `dataDirectory` with fsync on: a kill -9 must lose nothing a commit acknowledged.
 *
 * @example
 * const postgres = await startPostgresNode(join(runDirectory, 'postgres'), 54400);
 * await postgres.crashAndRestart(1_000);
 */
export const startPostgresNode = async (
  dataDirectory: string,
  port: number,
  settings: Readonly<Record<string, string>> = {},
): Promise<PostgresNode> => {
  let server: EmbeddedPostgresServer = await startWithoutSignalHooks({ dataDirectory, port, settings });
  return {
    connectionString: server.connectionString,
    port,
    postmasterPid: () => postmasterPid(dataDirectory),
    crashAndRestart: async (downMs) => {
      const pid = await postmasterPid(dataDirectory);
      process.kill(pid, 'SIGKILL');
      while (isAlive(pid)) await sleep(20);
      await sleep(downMs);
      // The backends notice their postmaster's death and leave; until they have, the shared memory is still held
      // and a new postmaster refuses to start.
      for (let attempt = 1; ; attempt += 1) {
        try {
          server = await startWithoutSignalHooks({ dataDirectory, port, settings });
          return;
        } catch (error) {
          if (attempt >= 60) throw error;
          await sleep(500);
        }
      }
    },
    stop: () => server.stop(),
  };
};
