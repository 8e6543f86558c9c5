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
import { median } from './median.js';

interface RoundResult {
  readonly round: number;
  readonly applied_events: number;
  readonly read_model_rows: number;
  readonly rebuild_seconds: number;
  readonly rebuild_events_per_s: number;
  readonly rebuild_rows_per_s: number;
  readonly ceiling_rows_per_s: number;
}

/*
 * Rebuild throughput of every read model (idempotency_keys, invoices+payments, orders+sales, stock counts+lines)
 * from a log of 200,000 events (domain events decided by the real deciders, each command with its key stream),
 * on one embedded PostgreSQL with fsync on. Beside it, the ceiling: the same read-model rows written by a bare
 * batched INSERT (multi-row, one transaction per batch, no reads, no logic) into empty copies of the tables.
 * `npm run bench -- projections [--rounds 3] [--batch 2000] [--events 200000] [--data-dir DIR]`: each round rebuilds
 * every read model as a new version, then measures the ceiling on that version's rows.
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
    rounds: value('rounds', 3),
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
  let seconds = 0;
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
    seconds = (performance.now() - started) / 1000;
    for (const { target } of tables) await client.query(`DROP TABLE ${target}`);
  } finally {
    client.release();
  }
  return { rows: total, rowsPerSecond: total / seconds };
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
  const { events, batchSize, rounds, dataDirectory } = parseArgs(args);
  console.log(
    `projections: rebuilding all read models from ${events.toLocaleString('en-US')} events (batch ${batchSize}, ${rounds} rounds), embedded PostgreSQL, fsync on`,
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
    // Rebuild and ceiling alternate, round after round, so a slow stretch of the machine hits both; the ratio is the
    // median of each round's own.
    const results: RoundResult[] = [];
    let outcomes: { name: string; outcome: RebuildOutcome }[] = [];
    for (let round = 1; round <= rounds; round += 1) {
      await pool.query('CHECKPOINT');
      const started = performance.now();
      const rebuilt = await rebuildProjections({ pool, store, projections: allProjections, batchSize });
      const seconds = (performance.now() - started) / 1000;
      outcomes = rebuilt.map((outcome) => ({ name: outcome.projection, outcome }));
      const applied = outcomes.reduce((sum, { outcome }) => sum + outcome.events, 0);
      const ceiling = await measureCeiling(
        pool,
        outcomes.map(({ name, outcome }) => ({ name, version: outcome.version })),
        batchSize,
      );
      const result = {
        round,
        applied_events: applied,
        read_model_rows: ceiling.rows,
        rebuild_seconds: seconds,
        rebuild_events_per_s: applied / seconds,
        rebuild_rows_per_s: ceiling.rows / seconds,
        ceiling_rows_per_s: ceiling.rowsPerSecond,
      };
      results.push(result);
      console.log(
        `round ${String(round)}: rebuild ${applied.toLocaleString('en-US')} events in ${seconds.toFixed(1)} s = ${Math.round(result.rebuild_events_per_s).toLocaleString('en-US')} events/s; ceiling ${Math.round(ceiling.rowsPerSecond).toLocaleString('en-US')} rows/s (${ceiling.rows.toLocaleString('en-US')} rows); ${(result.rebuild_events_per_s / ceiling.rowsPerSecond).toFixed(2)}x`,
      );
    }
    for (const { name, outcome } of outcomes)
      console.log(`  ${name.padEnd(18)} ${String(outcome.events).padStart(8)} events`);
    const of = (pick: (result: RoundResult) => number) => median(results.map(pick));
    const rebuildEventsPerSecond = of((result) => result.rebuild_events_per_s);
    const ceilingRowsPerSecond = of((result) => result.ceiling_rows_per_s);
    const ratio = of((result) => result.rebuild_events_per_s / result.ceiling_rows_per_s);
    console.log(
      `median of ${String(rounds)} rounds: rebuild ${Math.round(rebuildEventsPerSecond).toLocaleString('en-US')} events/s, ceiling ${Math.round(ceilingRowsPerSecond).toLocaleString('en-US')} rows/s, rebuild ÷ ceiling ${ratio.toFixed(2)}x (events/s over rows/s; each round's own ratio)`,
    );
    const last = results.at(-1);

    const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'results', 'projections.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(
      file,
      `${JSON.stringify(
        {
          rebuild_events_per_s: rebuildEventsPerSecond,
          ceiling_rows_per_s: ceilingRowsPerSecond,
          rebuild_vs_ceiling: ratio,
          setup: {
            events: logged,
            applied_events: last?.applied_events,
            read_model_rows: last?.read_model_rows,
            batch_size: batchSize,
            rounds,
            projections: outcomes.map(({ name, outcome }) => ({ name, events: outcome.events })),
            fsync: true,
          },
          rounds: results,
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
