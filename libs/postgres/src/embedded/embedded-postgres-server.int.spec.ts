import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import {
  findRunningEmbeddedPostgres,
  readEmbeddedPostgresPassword,
  startEmbeddedPostgres,
} from './embedded-postgres-server.js';

/** The environment a server's backend runs with, as the system shows it (Linux `/proc`). */
const backendEnvironment = async (connectionString: string): Promise<Map<string, string>> => {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const raw = await readFile(`/proc/${rows[0]?.pid}/environ`, 'utf8');
    return new Map(
      raw
        .split('\0')
        .filter(Boolean)
        .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
    );
  } finally {
    await client.end();
  }
};

describe.runIf(process.platform === 'linux')('embedded PostgreSQL server (Linux: reads /proc)', () => {
  // Each test sets the variable as its caller would; the runner's own value comes back after it.
  const runnersTunables = process.env['GLIBC_TUNABLES'];
  afterEach(() => {
    if (runnersTunables === undefined) delete process.env['GLIBC_TUNABLES'];
    else process.env['GLIBC_TUNABLES'] = runnersTunables;
  });

  it("runs its backends with glibc's malloc keeping freed memory, and leaves this process's environment as it was", async () => {
    delete process.env['GLIBC_TUNABLES'];
    const servers = await Promise.all([
      startEmbeddedPostgres({ ephemeral: true }),
      startEmbeddedPostgres({ ephemeral: true }),
    ]);
    try {
      expect(process.env['GLIBC_TUNABLES']).toBeUndefined();
      for (const server of servers) {
        const tunables = (await backendEnvironment(server.connectionString)).get('GLIBC_TUNABLES');
        // glibc reads the variable at the server's start and cuts it at the first ':' in place, which /proc shows.
        expect(tunables).toMatch(
          /^glibc\.malloc\.trim_threshold=16777216(:glibc\.malloc\.mmap_threshold=4194304)?$/,
        );
      }
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  });

  it('leaves tunables the caller set to the caller', async () => {
    process.env['GLIBC_TUNABLES'] = 'glibc.malloc.arena_max=2';
    const server = await startEmbeddedPostgres({ ephemeral: true });
    try {
      expect((await backendEnvironment(server.connectionString)).get('GLIBC_TUNABLES')).toBe(
        'glibc.malloc.arena_max=2',
      );
    } finally {
      await server.stop();
    }
  });
});

/** The server address a connection reached: null over a Unix-domain socket, the IP address over TCP. */
const serverAddress = async (connectionString: string): Promise<string | null> => {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const { rows } = await client.query<{ address: string | null }>('SELECT inet_server_addr() AS address');
    return rows[0]?.address ?? null;
  } finally {
    await client.end();
  }
};

/** Whether a connection over TCP on 127.0.0.1 to the server's port is refused (nothing listens there). */
const refusedOverTcp = async (connectionString: string): Promise<boolean> => {
  const url = new URL(connectionString);
  url.search = '';
  const client = new pg.Client({ connectionString: url.toString() });
  return client.connect().then(
    async () => {
      await client.end();
      return false;
    },
    (error: { code?: string }) => error.code === 'ECONNREFUSED',
  );
};

describe.runIf(process.platform !== 'win32')('embedded PostgreSQL server: how clients reach it', () => {
  it('is reached over the Unix-domain socket in its data folder only, never over TCP', async () => {
    const server = await startEmbeddedPostgres({ ephemeral: true });
    try {
      const url = new URL(server.connectionString);
      expect(url.searchParams.get('host')).toBe(server.dataDirectory);
      expect(await serverAddress(server.connectionString)).toBeNull();
      expect(await refusedOverTcp(server.connectionString)).toBe(true);
    } finally {
      await server.stop();
    }
  });

  it('puts its socket in a private folder of its own where the data folder is too long a path for one', async () => {
    const root = await mkdtemp(join(tmpdir(), 'once-long-'));
    await chmod(root, 0o755); // the server may run as another user (as root: the postgres user)
    const dataDirectory = join(
      root,
      'a-data-folder-whose-path-leaves-no-room-for-the-socket-file-name-after-it',
    );
    const server = await startEmbeddedPostgres({ dataDirectory, ephemeral: true });
    try {
      const socketDirectory = new URL(server.connectionString).searchParams.get('host') ?? '';
      expect(socketDirectory).not.toBe('');
      expect(socketDirectory.startsWith(dataDirectory)).toBe(false);
      expect((await stat(socketDirectory)).mode & 0o777).toBe(0o700);
      expect(await serverAddress(server.connectionString)).toBeNull();
      expect(await refusedOverTcp(server.connectionString)).toBe(true);
    } finally {
      await server.stop();
      await rm(root, { recursive: true, force: true });
    }
  });
});

/** Whether `password` opens a superuser session on the server behind `connectionString`. */
const acceptsPassword = async (connectionString: string, password: string): Promise<boolean> => {
  const url = new URL(connectionString);
  url.password = password;
  const client = new pg.Client({ connectionString: url.toString() });
  return client.connect().then(
    async () => {
      await client.end();
      return true;
    },
    (error: { code?: string }) => {
      if (error.code === '28P01') return false; // invalid_password
      throw error;
    },
  );
};

describe.runIf(process.platform !== 'win32')('embedded PostgreSQL server: its superuser password', () => {
  it('is random per cluster, kept in a 0600 file in the data folder and used again on restart', async () => {
    const root = await mkdtemp(join(tmpdir(), 'once-pw-'));
    await chmod(root, 0o755);
    const dataDirectory = join(root, 'data');
    const other = await startEmbeddedPostgres({ ephemeral: true });
    try {
      const first = await startEmbeddedPostgres({ dataDirectory, ephemeral: true });
      const password = new URL(first.connectionString).password;
      await first.stop();
      expect(password).toMatch(/^[0-9a-f]{48}$/);
      expect(password).not.toBe(new URL(other.connectionString).password);
      const file = join(dataDirectory, 'once-superuser-password');
      expect((await readFile(file, 'utf8')).trim()).toBe(password);
      expect((await stat(file)).mode & 0o777).toBe(0o600);

      const again = await startEmbeddedPostgres({ dataDirectory, ephemeral: true });
      try {
        expect(new URL(again.connectionString).password).toBe(password);
        expect(await acceptsPassword(again.connectionString, password)).toBe(true);
        expect(await acceptsPassword(again.connectionString, 'once')).toBe(false);
        expect(await findRunningEmbeddedPostgres(dataDirectory)).toEqual({
          connectionString: again.connectionString,
          port: again.port,
        });
      } finally {
        await again.stop();
      }
    } finally {
      await other.stop();
      await rm(root, { recursive: true, force: true });
    }
  });

  it('replaces the password every cluster once shared, on the first start that finds no password file', async () => {
    const root = await mkdtemp(join(tmpdir(), 'once-pw-'));
    await chmod(root, 0o755);
    const dataDirectory = join(root, 'data');
    try {
      const older = await startEmbeddedPostgres({ dataDirectory, ephemeral: true });
      const client = new pg.Client({ connectionString: older.connectionString });
      await client.connect();
      await client.query("ALTER ROLE postgres PASSWORD 'once'");
      await client.end();
      await older.stop();
      // The cluster now looks like one from before: the shared password and no file.
      await rm(join(dataDirectory, 'once-superuser-password'));

      const server = await startEmbeddedPostgres({ dataDirectory, ephemeral: true });
      try {
        const password = await readEmbeddedPostgresPassword(dataDirectory);
        expect(password).toMatch(/^[0-9a-f]{48}$/);
        expect(new URL(server.connectionString).password).toBe(password);
        expect(await acceptsPassword(server.connectionString, password as string)).toBe(true);
        expect(await acceptsPassword(server.connectionString, 'once')).toBe(false);
      } finally {
        await server.stop();
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('embedded PostgreSQL server: statistics', () => {
  it('analyzes a table that grew within seconds, so cached plans follow a fresh database as it fills', async () => {
    const server = await startEmbeddedPostgres({ ephemeral: true });
    const client = new pg.Client({ connectionString: server.connectionString });
    await client.connect();
    try {
      await client.query('CREATE TABLE grown (id integer PRIMARY KEY)');
      await client.query('INSERT INTO grown SELECT generate_series(1, 1000)');
      await expect
        .poll(
          async () => {
            const { rows } = await client.query<{ analyzed: Date | null }>(
              `SELECT last_autoanalyze AS analyzed FROM pg_stat_user_tables WHERE relname = 'grown'`,
            );
            return rows[0]?.analyzed ?? null;
          },
          { timeout: 20_000, interval: 250 },
        )
        .not.toBeNull();
    } finally {
      await client.end();
      await server.stop();
    }
  }, 30_000);
});
