import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StreamAppend } from '@once/event-store';
import { createPostgresEventStore } from '@once/event-store';
import { startEmbeddedPostgres } from '@once/postgres';
import { allProjections, physicalTableName, rebuildProjection } from '@once/projections';
import type { RebuildOutcome } from '@once/projections';
import { generateDomainWorkload } from '@once/projections/testing';
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
  return { events: value('events', 200_000), batchSize: value('batch', 2_000) };
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
      const resolved = group.map((append) => ({ ...append, expectedRevision: revisions.get(append.stream) ?? ('no_stream' as const) }));
      const results = await store.appendMulti(resolved);
      group.forEach((append, index) => revisions.set(append.stream, results[index]?.nextExpectedRevision ?? 0n));
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

/** Copies every row of the rebuilt tables into fresh tables with bare multi-row INSERTs; returns rows/s. */
const measureCeiling = async (
  pool: pg.Pool,
  outcomes: readonly { name: string; version: number }[],
  batchSize: number,
): Promise<{ rows: number; rowsPerSecond: number }> => {
  const tables: { source: string; target: string; columns: string[]; rows: Record<string, unknown>[] }[] = [];
  for (const { name, version } of outcomes) {
    const projection = allProjections.find((candidate) => candidate.name === name);
    for (const table of projection?.tables ?? []) {
      const source = physicalTableName(table, version);
      const target = `ceiling_${source}`;
      await pool.query(`DROP TABLE IF EXISTS ${target}; CREATE TABLE ${target} (LIKE ${source} INCLUDING ALL)`);
      const columns = Object.keys(table.columns);
      const rows = (await pool.query<Record<string, unknown>>(`SELECT * FROM ${source}`)).rows;
      tables.push({ source, target, columns, rows });
    }
  }
  const client = await pool.connect();
  const started = performance.now();
  let total = 0;
  try {
    for (const { target, columns, rows } of tables) {
      for (let offset = 0; offset < rows.length; offset += batchSize) {
        const slice = rows.slice(offset, offset + batchSize);
        const values: unknown[] = [];
        const tuples = slice.map((row) => {
          const placeholders = columns.map((column) => {
            const value = row[column];
            values.push(value !== null && typeof value === 'object' && !(value instanceof Date) ? JSON.stringify(value) : value);
            return `$${values.length}`;
          });
          return `(${placeholders.join(', ')})`;
        });
        // PostgreSQL takes at most 65,535 parameters per statement; split wide batches.
        const perStatement = Math.max(1, Math.floor(65_000 / columns.length));
        await client.query('BEGIN');
        for (let start = 0; start < tuples.length; start += perStatement) {
          const part = tuples.slice(start, start + perStatement);
          const used = values.slice(start * columns.length, (start + part.length) * columns.length);
          const renumbered = part.map((_, rowIndex) =>
            `(${columns.map((_column, columnIndex) => `$${rowIndex * columns.length + columnIndex + 1}`).join(', ')})`,
          );
          await client.query(`INSERT INTO ${target} (${columns.join(', ')}) VALUES ${renumbered.join(', ')}`, used);
        }
        await client.query('COMMIT');
        total += slice.length;
      }
    }
  } finally {
    client.release();
  }
  return { rows: total, rowsPerSecond: total / ((performance.now() - started) / 1000) };
};

export const run = async (args: readonly string[]): Promise<void> => {
  const { events, batchSize } = parseArgs(args);
  console.log(`projections: rebuilding all read models from ${events.toLocaleString('en-US')} events (batch ${batchSize}), embedded PostgreSQL, fsync on`);
  const server = await startEmbeddedPostgres();
  const pool = new pg.Pool({ connectionString: server.connectionString, max: 16 });
  // Idle connections are cut when the server stops at the end; that is expected, not a failure.
  pool.on('error', () => undefined);
  try {
    const fillStarted = performance.now();
    const logged = await fillLog(pool, events);
    console.log(`log: ${logged.toLocaleString('en-US')} events written in ${((performance.now() - fillStarted) / 1000).toFixed(1)} s`);
    const store = createPostgresEventStore(pool);
    await pool.query('CHECKPOINT');

    const started = performance.now();
    const outcomes: { name: string; outcome: RebuildOutcome; seconds: number }[] = await Promise.all(
      allProjections.map(async (projection) => {
        const projectionStarted = performance.now();
        const outcome = await rebuildProjection({ pool, store, projection, batchSize });
        return { name: projection.name, outcome, seconds: (performance.now() - projectionStarted) / 1000 };
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const applied = outcomes.reduce((sum, { outcome }) => sum + outcome.events, 0);
    for (const { name, outcome, seconds: own } of outcomes) {
      console.log(`  ${name.padEnd(18)} ${String(outcome.events).padStart(8)} events in ${own.toFixed(1)} s`);
    }
    const rebuildEventsPerSecond = applied / seconds;
    console.log(`rebuild: ${applied.toLocaleString('en-US')} events in ${seconds.toFixed(1)} s = ${Math.round(rebuildEventsPerSecond).toLocaleString('en-US')} events/s`);

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
            projections: outcomes.map(({ name, outcome, seconds: own }) => ({ name, events: outcome.events, seconds: own })),
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
