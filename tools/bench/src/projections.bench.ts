import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StreamAppend } from '@once/event-store';
import { createPostgresEventStore } from '@once/event-store/postgres';
import { startEmbeddedPostgres } from '@once/postgres';
import { physicalTableName, rebuildProjections } from '@once/projections';
import type { RebuildOutcome } from '@once/projections';
import { allProjections } from '@once/read-models';
import { generateDomainWorkload } from '@once/read-models/testing';
import pg from 'pg';

/*
 * Rebuild throughput of every read model (idempotency_keys, invoices+payments, orders+sales, stock counts+lines)
 * from a log of 200,000 events (domain events decided by the real deciders, each command with its key stream),
 * on one embedded PostgreSQL with fsync on. Beside it, the ceiling: the same read-model rows written by a bare
 * batched INSERT (multi-row, one transaction per batch, no reads, no logic) into empty copies of the tables.
 */

const parseArgs = (args: readonly string[]) => {
  const value = (name: string, fallback: number): number => {
    const index = args.indexOf(`--${name}`);
    const parsed = index >= 0 ? Number(args[index + 1]) : Number.NaN;
    return Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
  };
  const dataIndex = args.indexOf('--data-dir');
  return {
    events: value('events', 200_000),
    batchSize: value('batch', 2_000),
    // Keeps the server's data between runs, so the log is written once (for iterating on the rebuild).
    dataDirectory: dataIndex >= 0 ? args[dataIndex + 1] : undefined,
  };
};

/** Writes the log with `lanes` concurrent writers; a stream always goes through the same lane, so its appends stay in order. */
const fillLog = async (pool: pg.Pool, events: number, lanes = 4): Promise<number> => {
  const store = createPostgresEventStore(pool);
  const revisions = new Map<string, bigint>();
  const laneOf = new Map<string, number>();
  const groups: StreamAppend[][] = Array.from({ length: lanes }, () => []);
  const pending: Promise<void>[] = Array.from({ length: lanes }, () => Promise.resolve());
  let written = 0;
  const flush = (lane: number): Promise<void> => {
    const group = groups[lane] ?? [];
    groups[lane] = [];
    if (group.length === 0) return pending[lane] ?? Promise.resolve();
    const next = (pending[lane] ?? Promise.resolve()).then(async () => {
      const resolved = group.map((append) => ({
        ...append,
        expectedRevision: revisions.get(append.stream) ?? ('no_stream' as const),
      }));
      const results = await store.appendMulti(resolved);
      group.forEach((append, index) =>
        revisions.set(append.stream, results[index]?.nextExpectedRevision ?? 0n),
      );
      written += group.reduce((sum, append) => sum + append.events.length, 0);
    });
    pending[lane] = next;
    return next;
  };
  const tenantIds = Array.from({ length: 20 }, () => crypto.randomUUID());
  for (const append of generateDomainWorkload({ seed: 20_260_101, tenantIds, events, withKeys: true })) {
    let lane = laneOf.get(append.stream);
    if (lane === undefined) {
      lane = laneOf.size % lanes;
      laneOf.set(append.stream, lane);
    }
    const group = groups[lane] ?? [];
    if (group.some((queued) => queued.stream === append.stream) || group.length >= 250) {
      void flush(lane);
      // Keep at most one flush in flight per lane, so memory stays bounded.
      await pending[lane];
    }
    (groups[lane] ?? []).push({ stream: append.stream, events: append.events, expectedRevision: 'any' });
  }
  await Promise.all(groups.map((_, lane) => flush(lane)));
  await store.close();
  return written;
};

/**
 * Copies every row of the rebuilt tables into fresh tables with bare batched INSERTs (one multi-row
 * `INSERT … SELECT FROM unnest(…)` and one transaction per batch, no reads, no conflict handling); returns rows/s.
 */
const measureCeiling = async (
  pool: pg.Pool,
  outcomes: readonly { name: string; version: number }[],
  batchSize: number,
): Promise<{ rows: number; rowsPerSecond: number }> => {
  const tables: { target: string; columns: [string, string][]; rows: Record<string, unknown>[] }[] = [];
  for (const { name, version } of outcomes) {
    const projection = allProjections.find((candidate) => candidate.name === name);
    for (const table of projection?.tables ?? []) {
      const source = physicalTableName(table, version);
      const target = `ceiling_${source}`;
      await pool.query(
        `DROP TABLE IF EXISTS ${target}; CREATE TABLE ${target} (LIKE ${source} INCLUDING ALL)`,
      );
      const columns = Object.entries(table.columns).map(([column, definition]): [string, string] => [
        column,
        definition.type,
      ]);
      const rows = (await pool.query<Record<string, unknown>>(`SELECT * FROM ${source}`)).rows;
      tables.push({ target, columns, rows });
    }
  }
  const client = await pool.connect();
  const started = performance.now();
  let total = 0;
  try {
    for (const { target, columns, rows } of tables) {
      const statement = `INSERT INTO ${target} (${columns.map(([column]) => column).join(', ')})
        SELECT * FROM unnest(${columns.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ')})`;
      for (let offset = 0; offset < rows.length; offset += batchSize) {
        const slice = rows.slice(offset, offset + batchSize);
        const arrays = columns.map(([column, type]) =>
          slice.map((row) => {
            const value = row[column];
            return type === 'jsonb' && value !== null ? JSON.stringify(value) : value;
          }),
        );
        await client.query('BEGIN');
        await client.query(statement, arrays);
        await client.query('COMMIT');
        total += slice.length;
      }
    }
  } finally {
    client.release();
  }
  return { rows: total, rowsPerSecond: total / ((performance.now() - started) / 1000) };
};

/** Removes every projection version left by an earlier run on a kept data folder. */
const dropReadModels = async (pool: pg.Pool): Promise<void> => {
  const exists = await pool.query<{ ready: boolean }>(
    `SELECT to_regclass('projection_versions') IS NOT NULL AS ready`,
  );
  if (!exists.rows[0]?.ready) return;
  const versions = await pool.query<{ name: string; version: number }>(
    'SELECT name, version FROM projection_versions',
  );
  for (const projection of allProjections) {
    for (const table of projection.tables) {
      await pool.query(`DROP VIEW IF EXISTS ${table.name}`);
      for (const { version } of versions.rows.filter((row) => row.name === projection.name)) {
        await pool.query(
          `DROP TABLE IF EXISTS ${physicalTableName(table, version)}, ceiling_${physicalTableName(table, version)}`,
        );
      }
    }
  }
  await pool.query(`DELETE FROM once_migrations WHERE component LIKE 'projection:%'`);
  await pool.query('DELETE FROM projection_versions');
  await pool.query('DELETE FROM projection_checkpoints');
};

export const run = async (args: readonly string[]): Promise<void> => {
  const { events, batchSize, dataDirectory } = parseArgs(args);
  console.log(
    `projections: rebuilding all read models from ${events.toLocaleString('en-US')} events (batch ${batchSize}), embedded PostgreSQL, fsync on`,
  );
  const server = await startEmbeddedPostgres(dataDirectory ? { dataDirectory } : {});
  const pool = new pg.Pool({ connectionString: server.connectionString, max: 16 });
  // Idle connections are cut when the server stops at the end; that is expected, not a failure.
  pool.on('error', () => undefined);
  try {
    const fillStarted = performance.now();
    const existing = await pool
      .query<{ count: string }>('SELECT count(*) FROM events')
      .then((result) => Number(result.rows[0]?.count ?? 0))
      .catch(() => 0);
    const logged = existing >= events ? existing : await fillLog(pool, events);
    await dropReadModels(pool);
    console.log(
      `log: ${logged.toLocaleString('en-US')} events written in ${((performance.now() - fillStarted) / 1000).toFixed(1)} s`,
    );
    const store = createPostgresEventStore(pool);
    await pool.query('CHECKPOINT');

    const started = performance.now();
    const rebuilt: readonly RebuildOutcome[] = await rebuildProjections({
      pool,
      store,
      projections: allProjections,
      batchSize,
    });
    const seconds = (performance.now() - started) / 1000;
    const outcomes = rebuilt.map((outcome) => ({ name: outcome.projection, outcome }));
    const applied = outcomes.reduce((sum, { outcome }) => sum + outcome.events, 0);
    for (const { name, outcome } of outcomes)
      console.log(`  ${name.padEnd(18)} ${String(outcome.events).padStart(8)} events`);
    const rebuildEventsPerSecond = applied / seconds;
    console.log(
      `rebuild: ${applied.toLocaleString('en-US')} events in ${seconds.toFixed(1)} s = ${Math.round(rebuildEventsPerSecond).toLocaleString('en-US')} events/s`,
    );

    const ceiling = await measureCeiling(
      pool,
      outcomes.map(({ name, outcome }) => ({ name, version: outcome.version })),
      batchSize,
    );
    console.log(
      `ceiling: bare batched INSERT of the same ${ceiling.rows.toLocaleString('en-US')} read-model rows = ${Math.round(ceiling.rowsPerSecond).toLocaleString('en-US')} rows/s`,
    );
    const rebuildRowsPerSecond = ceiling.rows / seconds;
    console.log(
      `ratio: ${(rebuildEventsPerSecond / ceiling.rowsPerSecond).toFixed(2)}× the ceiling (events/s over rows/s); rows written by the rebuild ${Math.round(rebuildRowsPerSecond).toLocaleString('en-US')}/s = ${(rebuildRowsPerSecond / ceiling.rowsPerSecond).toFixed(2)}× the ceiling`,
    );

    const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'results', 'projections.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(
      file,
      `${JSON.stringify(
        {
          rebuild_events_per_s: rebuildEventsPerSecond,
          ceiling_rows_per_s: ceiling.rowsPerSecond,
          setup: {
            events: logged,
            applied_events: applied,
            read_model_rows: ceiling.rows,
            batch_size: batchSize,
            projections: outcomes.map(({ name, outcome }) => ({ name, events: outcome.events })),
            rebuild_seconds: seconds,
            rebuild_rows_per_s: rebuildRowsPerSecond,
            fsync: true,
          },
        },
        null,
        2,
      )}\n`,
    );
    console.log(`wrote ${file}`);
    await store.close();
  } finally {
    await pool.end();
    await server.stop();
  }
};
