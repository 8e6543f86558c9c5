import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from './embedded-postgres-server.js';

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

describe.runIf(process.platform !== 'win32')('embedded PostgreSQL server: how clients reach it', () => {
  it('is reached over the Unix-domain socket in its data folder, and still over TCP on 127.0.0.1', async () => {
    const server = await startEmbeddedPostgres({ ephemeral: true });
    try {
      const url = new URL(server.connectionString);
      expect(url.searchParams.get('host')).toBe(server.dataDirectory);
      expect(await serverAddress(server.connectionString)).toBeNull();
      url.search = '';
      expect(await serverAddress(url.toString())).toBe('127.0.0.1');
    } finally {
      await server.stop();
    }
  });

  it('is reached over TCP where the data folder is too long a path for a socket', async () => {
    const root = await mkdtemp(join(tmpdir(), 'once-long-'));
    await chmod(root, 0o755); // the server may run as another user (as root: the postgres user)
    const dataDirectory = join(
      root,
      'a-data-folder-whose-path-leaves-no-room-for-the-socket-file-name-after-it',
    );
    const server = await startEmbeddedPostgres({ dataDirectory, ephemeral: true });
    try {
      expect(new URL(server.connectionString).searchParams.has('host')).toBe(false);
      expect(await serverAddress(server.connectionString)).toBe('127.0.0.1');
    } finally {
      await server.stop();
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
