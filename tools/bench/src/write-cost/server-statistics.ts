import pg from 'pg';

/** Server settings a cost measurement needs: statement statistics, nested statements (inside functions) included. */
export const statisticsSettings: Readonly<Record<string, string>> = {
  shared_preload_libraries: 'pg_stat_statements',
  'pg_stat_statements.track': 'all',
  'pg_stat_statements.max': '2000',
};

/** One statement's totals in a measurement window, as `pg_stat_statements` counts them. */
export interface StatementCost {
  readonly query: string;
  /** false for statements run inside a function (an append's inner INSERT), already counted in their caller. */
  readonly toplevel: boolean;
  readonly calls: number;
  /** Planning and execution, in microseconds. */
  readonly timeMicros: number;
  readonly walBytes: number;
}

/** One relation's (or, for records that touch none, one resource manager's) share of the WAL in a window. */
export interface WalShare {
  readonly name: string;
  readonly records: number;
  readonly bytes: number;
  /** Of `bytes`, the full-page images (first change of a page after a checkpoint). */
  readonly fullPageBytes: number;
}

/**
 * Reads the server's statistics over a connection to its `postgres` database (so a side's own statement list stays
 * clean): the WAL position, `pg_stat_statements` per database, and the WAL between two positions by relation
 * (`pg_walinspect`).
 */
export class ServerStatistics {
  private constructor(
    private readonly client: pg.Client,
    private readonly serverUrl: string,
  ) {}

  static async connect(serverUrl: string): Promise<ServerStatistics> {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
    return new ServerStatistics(client, serverUrl);
  }

  async close(): Promise<void> {
    await this.client.end();
  }

  async walPosition(): Promise<string> {
    const { rows } = await this.client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
    return rows[0]?.lsn as string;
  }

  async walBytesBetween(from: string, to: string): Promise<number> {
    const { rows } = await this.client.query<{ bytes: string }>('SELECT pg_wal_lsn_diff($2, $1) AS bytes', [
      from,
      to,
    ]);
    return Number(rows[0]?.bytes);
  }

  /** Connections `database` has accepted so far (its server processes started for clients). */
  async sessions(database: string): Promise<number> {
    const { rows } = await this.client.query<{ sessions: string | null }>(
      'SELECT sessions::text AS sessions FROM pg_stat_database WHERE datname = $1',
      [database],
    );
    return Number(rows[0]?.sessions ?? 0);
  }

  /** WAL flushes (fsyncs of WAL) the server made so far, by every process. */
  async walFlushes(): Promise<number> {
    const { rows } = await this.client.query<{ fsyncs: string | null }>(
      "SELECT sum(fsyncs)::text AS fsyncs FROM pg_stat_io WHERE object = 'wal'",
    );
    return Number(rows[0]?.fsyncs ?? 0);
  }

  /**
   * Samples `database`'s backends every few milliseconds until `stop` is called: how many were waiting for the WAL to
   * reach the disk (`LWLock:WALWrite`, a flush by another backend; `IO:WalSync`, their own), on average per sample.
   * Over a connection of its own, so the samples do not queue behind the statistics queries.
   */
  async sampleFlushWaits(database: string): Promise<{ stop(): Promise<number> }> {
    const client = new pg.Client({ connectionString: this.serverUrl });
    await client.connect();
    let stopping = false;
    let samples = 0;
    let waiting = 0;
    const sampling = (async () => {
      while (!stopping) {
        const { rows } = await client.query<{ waiting: number }>(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity
            WHERE datname = $1 AND wait_event IN ('WALWrite', 'WalSync') AND pid <> pg_backend_pid()`,
          [database],
        );
        samples += 1;
        waiting += rows[0]?.waiting ?? 0;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    return {
      stop: async () => {
        stopping = true;
        await sampling;
        await client.end();
        return samples === 0 ? 0 : waiting / samples;
      },
    };
  }

  async resetStatements(): Promise<void> {
    await this.client.query('SELECT pg_stat_statements_reset()');
  }

  /** The statements run in `database` since the last reset. */
  async statements(database: string): Promise<StatementCost[]> {
    const { rows } = await this.client.query<{
      query: string;
      toplevel: boolean;
      calls: string;
      time: number;
      wal_bytes: string;
    }>(
      `SELECT s.query, s.toplevel, s.calls, s.total_exec_time + s.total_plan_time AS time, s.wal_bytes
         FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
        WHERE d.datname = $1
        ORDER BY s.total_exec_time + s.total_plan_time DESC`,
      [database],
    );
    return rows.map((row) => ({
      query: row.query.replace(/\s+/g, ' ').trim(),
      toplevel: row.toplevel,
      calls: Number(row.calls),
      timeMicros: row.time * 1000,
      walBytes: Number(row.wal_bytes),
    }));
  }

  /** The pids of the client backends connected to `database`. */
  async backends(database: string): Promise<number[]> {
    const { rows } = await this.client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'",
      [database],
    );
    return rows.map((row) => row.pid);
  }

  /**
   * The WAL records between two positions, each counted whole against the relation of its first block (named in
   * `databaseUrls`' databases), or against its resource manager when it touches no block (commits, for one).
   */
  async walByRelation(from: string, to: string, databaseUrls: readonly string[]): Promise<WalShare[]> {
    const { rows } = await this.client.query<{
      reldatabase: number | null;
      relfilenode: number | null;
      resource_manager: string;
      records: string;
      bytes: string;
      fpi: string;
    }>(
      `WITH records AS (
         SELECT start_lsn, resource_manager, record_length, fpi_length FROM pg_get_wal_records_info($1, $2)
       ), first_blocks AS (
         SELECT DISTINCT ON (start_lsn) start_lsn, reldatabase, relfilenode
           FROM pg_get_wal_block_info($1, $2) ORDER BY start_lsn, block_id
       )
       SELECT b.reldatabase, b.relfilenode, r.resource_manager, count(*) AS records,
              sum(r.record_length) AS bytes, sum(r.fpi_length) AS fpi
         FROM records r LEFT JOIN first_blocks b USING (start_lsn)
        GROUP BY 1, 2, 3`,
      [from, to],
    );
    const names = await relationNames(databaseUrls);
    const shares = new Map<string, { records: number; bytes: number; fullPageBytes: number }>();
    for (const row of rows) {
      const name =
        row.relfilenode === null
          ? `(${row.resource_manager} records, no relation)`
          : (names.get(`${String(row.reldatabase)}/${String(row.relfilenode)}`) ??
            `(other relation, ${row.resource_manager})`);
      const share = shares.get(name) ?? { records: 0, bytes: 0, fullPageBytes: 0 };
      share.records += Number(row.records);
      share.bytes += Number(row.bytes);
      share.fullPageBytes += Number(row.fpi);
      shares.set(name, share);
    }
    return [...shares].map(([name, share]) => ({ name, ...share })).sort((a, b) => b.bytes - a.bytes);
  }
}

/** `<database oid>/<filenode>` → `<database>.<relation>` for every table and index of the given databases. */
const relationNames = async (databaseUrls: readonly string[]): Promise<Map<string, string>> => {
  const names = new Map<string, string>();
  for (const url of databaseUrls) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{
        database: number;
        datname: string;
        filenode: number;
        relname: string;
      }>(
        `SELECT d.oid AS database, d.datname, pg_relation_filenode(c.oid) AS filenode, c.relname
           FROM pg_class c CROSS JOIN pg_database d
          WHERE d.datname = current_database() AND pg_relation_filenode(c.oid) IS NOT NULL
            AND c.relkind IN ('r', 'i', 't', 'S', 'm')`,
      );
      for (const row of rows)
        names.set(`${String(row.database)}/${String(row.filenode)}`, `${row.datname}.${row.relname}`);
    } finally {
      await client.end();
    }
  }
  return names;
};
