import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dumbo, endAllPools } from '@event-driven-io/dumbo';
import { getPostgreSQLEventStore, readMessagesBatch } from '@event-driven-io/emmett-postgresql';
import type { ExpectedRevision } from '@once/event-store';
import { createPostgresEventStore } from '@once/event-store/postgres';
import { startEmbeddedPostgres } from '@once/postgres';
import pg from 'pg';

/*
 * Single-event appends to 1,000 streams with 8 concurrent writers, on one embedded PostgreSQL with fsync on:
 * (a) our adapter, (b) Emmett's appendToStream, (c) the ceiling, a bare BEGIN; INSERT; COMMIT loop. Our adapter runs
 * with its appends sharing commits (the default) and without (`shareCommits: false`), at 8 writers and at 64. Then the global
 * read from the start, ours against Emmett's readMessagesBatch, of two stores of a fixed size (100,000 and 20,000
 * events). Runs are interleaved, round after round, so machine noise hits all contenders alike; the table reports
 * medians.
 */

const streamCount = 1_000;
const writers = 8;
const manyWriters = 64;
const defaultRounds = 5;
const defaultSecondsPerRun = 4;
const readBatchSize = 1_000;
const readEventsPerStream = 100;
/**
 * The stores the global read goes through, each in databases of its own for both contenders, so that what a machine
 * managed to append in the rounds does not change what is read. Emmett's page query sorts every event past the
 * page's start, so its rate falls as the store grows, and ours does not: the ratio is reported at both sizes.
 */
const readStores = [
  { events: 100_000, ours: 'ours_read_events_per_s', emmett: 'emmett_read_events_per_s' },
  { events: 20_000, ours: 'ours_read_20k_events_per_s', emmett: 'emmett_read_20k_events_per_s' },
] as const;

interface RoundResult {
  round: number;
  ours_appends_per_s: number;
  ours_unshared_appends_per_s: number;
  ours_64_writers_appends_per_s: number;
  ours_64_writers_unshared_appends_per_s: number;
  emmett_appends_per_s: number;
  ceiling_tx_per_s: number;
  ours_read_events_per_s: number;
  emmett_read_events_per_s: number;
  ours_read_20k_events_per_s: number;
  emmett_read_20k_events_per_s: number;
}

type AppendOnce = (writer: number, streamIndex: number) => Promise<void>;

/** Runs `writerCount` loops for `seconds`; each loop appends to its own share of the streams, round robin. */
const measureAppends = async (
  seconds: number,
  append: AppendOnce,
  writerCount = writers,
): Promise<number> => {
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  let completed = 0;
  await Promise.all(
    Array.from({ length: writerCount }, async (_, writer) => {
      let turn = 0;
      while (performance.now() < deadline) {
        const streamIndex = writer + writerCount * (turn % Math.floor(streamCount / writerCount));
        await append(writer, streamIndex);
        completed += 1;
        turn += 1;
      }
    }),
  );
  return completed / ((performance.now() - started) / 1000);
};

const payload = (streamIndex: number) => ({ amount: 1250, currency: 'EUR', note: `stream ${streamIndex}` });

const oursAppender = (store: ReturnType<typeof createPostgresEventStore>, prefix: string): AppendOnce => {
  const revisions = new Map<number, bigint>();
  return async (_writer, streamIndex) => {
    const expectedRevision: ExpectedRevision = revisions.get(streamIndex) ?? 'no_stream';
    const result = await store.appendToStream(
      `${prefix}-${streamIndex}`,
      [{ id: randomUUID(), type: 'PaymentRecorded', data: payload(streamIndex) }],
      { expectedRevision },
    );
    revisions.set(streamIndex, result.nextExpectedRevision);
  };
};

const emmettAppender = (store: ReturnType<typeof getPostgreSQLEventStore>, prefix: string): AppendOnce => {
  const versions = new Map<number, bigint>();
  return async (_writer, streamIndex) => {
    const result = await store.appendToStream(
      `${prefix}-${streamIndex}`,
      [{ type: 'PaymentRecorded', data: payload(streamIndex) }],
      { expectedStreamVersion: versions.get(streamIndex) ?? 0n },
    );
    versions.set(streamIndex, result.nextExpectedStreamVersion);
  };
};

const ceilingAppender = (clients: readonly pg.PoolClient[]): AppendOnce => {
  return async (writer, streamIndex) => {
    const client = clients[writer] as pg.PoolClient;
    await client.query('BEGIN');
    await client.query({
      name: 'ceiling_insert',
      text: 'INSERT INTO ceiling_events (stream, data) VALUES ($1, $2)',
      values: [`ceiling-${streamIndex}`, JSON.stringify(payload(streamIndex))],
    });
    await client.query('COMMIT');
  };
};

const measureOursRead = async (
  store: ReturnType<typeof createPostgresEventStore>,
  limit: number,
): Promise<number> => {
  const started = performance.now();
  let read = 0;
  let after;
  while (read < limit) {
    const batch = await store.readAll({ maxCount: readBatchSize, ...(after ? { after } : {}) });
    read += batch.events.length;
    after = batch.checkpoint;
    if (batch.caughtUp) break;
  }
  return read / ((performance.now() - started) / 1000);
};

const measureEmmettRead = async (
  execute: Parameters<typeof readMessagesBatch>[0],
  limit: number,
): Promise<number> => {
  const started = performance.now();
  let read = 0;
  let after: bigint | undefined;
  while (read < limit) {
    const batch = await readMessagesBatch(
      execute,
      after === undefined ? { from: 0n, batchSize: readBatchSize } : { after, batchSize: readBatchSize },
    );
    read += batch.messages.length;
    after = batch.currentGlobalPosition;
    if (!batch.areMessagesLeft) break;
  }
  return read / ((performance.now() - started) / 1000);
};

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

const createDatabase = async (serverUrl: string, name: string): Promise<string> => {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
};

/** One read store in a database of its own for each contender, holding the same events, 100 to a stream. */
const openReadStore = async (serverUrl: string, store: (typeof readStores)[number]) => {
  const streams = store.events / readEventsPerStream;
  const oursReadPool = new pg.Pool({
    connectionString: await createDatabase(serverUrl, `bench_ours_read_${streams}`),
    max: 2,
  });
  oursReadPool.on('error', () => undefined);
  const oursRead = createPostgresEventStore(oursReadPool);
  const emmettReadUrl = await createDatabase(serverUrl, `bench_emmett_read_${streams}`);
  const emmettRead = getPostgreSQLEventStore(emmettReadUrl);
  const seedPayload = Array.from({ length: readEventsPerStream }, (_, index) => payload(index));
  for (let stream = 0; stream < streams; stream += 1) {
    await oursRead.appendToStream(
      `read-${stream}`,
      seedPayload.map((data) => ({ id: randomUUID(), type: 'PaymentRecorded', data })),
      { expectedRevision: 'no_stream' },
    );
    await emmettRead.appendToStream(
      `read-${stream}`,
      seedPayload.map((data) => ({ type: 'PaymentRecorded', data })),
      { expectedStreamVersion: 0n },
    );
  }
  return {
    ...store,
    oursRead,
    oursReadPool,
    emmettRead,
    emmettReader: dumbo({ connectionString: emmettReadUrl }),
  };
};

const numberArgument = (args: readonly string[], flag: string, fallback: number): number => {
  const index = args.indexOf(flag);
  const value = index >= 0 ? Number(args[index + 1]) : Number.NaN;
  return Number.isFinite(value) && value > 0 ? value : fallback;
};

/** `npm run bench -- event-store [--rounds 5] [--seconds 4]` */
export const run = async (args: readonly string[]): Promise<void> => {
  const rounds = numberArgument(args, '--rounds', defaultRounds);
  const seconds = numberArgument(args, '--seconds', defaultSecondsPerRun);
  console.log(
    `event-store bench: ${streamCount} streams, ${writers} writers, ${rounds} rounds of ${seconds}s, fsync on`,
  );
  const server = await startEmbeddedPostgres();
  try {
    const oursUrl = await createDatabase(server.connectionString, 'bench_ours');
    const emmettUrl = await createDatabase(server.connectionString, 'bench_emmett');
    const ceilingUrl = await createDatabase(server.connectionString, 'bench_ceiling');

    const oursPool = new pg.Pool({ connectionString: oursUrl, max: writers });
    const ours = createPostgresEventStore(oursPool);
    const oursUnshared = createPostgresEventStore(oursPool, { migrate: false, shareCommits: false });
    const emmett = getPostgreSQLEventStore(emmettUrl);
    const ceilingPool = new pg.Pool({ connectionString: ceilingUrl, max: writers });
    // Idle clients see the server stop at the end; that is not an error of the benchmark.
    for (const pool of [oursPool, ceilingPool]) pool.on('error', () => undefined);
    await ceilingPool.query(
      'CREATE TABLE ceiling_events (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, stream text NOT NULL, data jsonb NOT NULL)',
    );
    const ceilingClients = await Promise.all(Array.from({ length: writers }, () => ceilingPool.connect()));

    // Warm-up: schemas, prepared statements, and each store's first event per stream.
    await measureAppends(1, oursAppender(ours, 'warmup'));
    await measureAppends(1, oursAppender(oursUnshared, 'warmup-unshared'));
    await measureAppends(1, emmettAppender(emmett, 'warmup'));
    await measureAppends(1, ceilingAppender(ceilingClients));

    const runs = [
      {
        key: 'ours_appends_per_s',
        run: () => measureAppends(seconds, oursAppender(ours, `ours-${randomUUID()}`)),
      },
      {
        key: 'ours_unshared_appends_per_s',
        run: () => measureAppends(seconds, oursAppender(oursUnshared, `ours-${randomUUID()}`)),
      },
      {
        key: 'ours_64_writers_appends_per_s',
        run: () => measureAppends(seconds, oursAppender(ours, `ours-${randomUUID()}`), manyWriters),
      },
      {
        key: 'ours_64_writers_unshared_appends_per_s',
        run: () => measureAppends(seconds, oursAppender(oursUnshared, `ours-${randomUUID()}`), manyWriters),
      },
      {
        key: 'emmett_appends_per_s',
        run: () => measureAppends(seconds, emmettAppender(emmett, `emmett-${randomUUID()}`)),
      },
      { key: 'ceiling_tx_per_s', run: () => measureAppends(seconds, ceilingAppender(ceilingClients)) },
    ] as const;

    const results: RoundResult[] = [];
    for (let round = 1; round <= rounds; round += 1) {
      const result: RoundResult = {
        round,
        ours_appends_per_s: 0,
        ours_unshared_appends_per_s: 0,
        ours_64_writers_appends_per_s: 0,
        ours_64_writers_unshared_appends_per_s: 0,
        emmett_appends_per_s: 0,
        ceiling_tx_per_s: 0,
        ours_read_events_per_s: 0,
        emmett_read_events_per_s: 0,
        ours_read_20k_events_per_s: 0,
        emmett_read_20k_events_per_s: 0,
      };
      const order = [...runs.slice(round % runs.length), ...runs.slice(0, round % runs.length)];
      for (const { key, run: measure } of order) result[key] = await measure();
      results.push(result);
      console.log(
        `round ${round}: appends/s ours ${result.ours_appends_per_s.toFixed(0)} (unshared ${result.ours_unshared_appends_per_s.toFixed(0)}; 64 writers ${result.ours_64_writers_appends_per_s.toFixed(0)}, unshared ${result.ours_64_writers_unshared_appends_per_s.toFixed(0)}), emmett ${result.emmett_appends_per_s.toFixed(0)}, ceiling ${result.ceiling_tx_per_s.toFixed(0)}`,
      );
    }

    const readDatabases = [];
    for (const store of readStores) readDatabases.push(await openReadStore(server.connectionString, store));
    for (const result of results) {
      for (const { events, ours: oursKey, emmett: emmettKey, oursRead, emmettReader } of readDatabases) {
        const oursFirst = result.round % 2 === 0;
        if (oursFirst) result[oursKey] = await measureOursRead(oursRead, events);
        result[emmettKey] = await measureEmmettRead(emmettReader.execute, events);
        if (!oursFirst) result[oursKey] = await measureOursRead(oursRead, events);
        console.log(
          `round ${result.round}: read events/s of ${events} events: ours ${result[oursKey].toFixed(0)}, emmett ${result[emmettKey].toFixed(0)}`,
        );
      }
    }

    const summary = {
      ours_appends_per_s: median(results.map((result) => result.ours_appends_per_s)),
      ours_unshared_appends_per_s: median(results.map((result) => result.ours_unshared_appends_per_s)),
      ours_64_writers_appends_per_s: median(results.map((result) => result.ours_64_writers_appends_per_s)),
      ours_64_writers_unshared_appends_per_s: median(
        results.map((result) => result.ours_64_writers_unshared_appends_per_s),
      ),
      emmett_appends_per_s: median(results.map((result) => result.emmett_appends_per_s)),
      ceiling_tx_per_s: median(results.map((result) => result.ceiling_tx_per_s)),
      ours_read_events_per_s: median(results.map((result) => result.ours_read_events_per_s)),
      emmett_read_events_per_s: median(results.map((result) => result.emmett_read_events_per_s)),
      ours_read_20k_events_per_s: median(results.map((result) => result.ours_read_20k_events_per_s)),
      emmett_read_20k_events_per_s: median(results.map((result) => result.emmett_read_20k_events_per_s)),
    };
    // Each round's contenders ran back to back: the median of the rounds' own ratios is steadier than a ratio of
    // medians taken from different stretches of a noisy machine.
    const roundRatio = (a: (result: RoundResult) => number, b: (result: RoundResult) => number): number =>
      median(results.map((result) => a(result) / b(result)));
    const ratios = {
      appends_vs_ceiling: roundRatio(
        (r) => r.ours_appends_per_s,
        (r) => r.ceiling_tx_per_s,
      ),
      appends_vs_emmett: roundRatio(
        (r) => r.ours_appends_per_s,
        (r) => r.emmett_appends_per_s,
      ),
      read_vs_emmett: roundRatio(
        (r) => r.ours_read_events_per_s,
        (r) => r.emmett_read_events_per_s,
      ),
      read_20k_vs_emmett: roundRatio(
        (r) => r.ours_read_20k_events_per_s,
        (r) => r.emmett_read_20k_events_per_s,
      ),
    };
    console.log(
      `medians of each round's ratios: appends ${ratios.appends_vs_ceiling.toFixed(2)}x the ceiling, ${ratios.appends_vs_emmett.toFixed(2)}x emmett's; global read ${ratios.read_vs_emmett.toFixed(2)}x emmett's (${ratios.read_20k_vs_emmett.toFixed(2)}x of 20,000 events)`,
    );
    const ratio = (a: number, b: number): string => (b > 0 ? `${(a / b).toFixed(2)}x` : 'n/a');
    console.table({
      'appends/s (median)': {
        ours: Math.round(summary.ours_appends_per_s),
        emmett: Math.round(summary.emmett_appends_per_s),
        ceiling: Math.round(summary.ceiling_tx_per_s),
        'ours/emmett': ratio(summary.ours_appends_per_s, summary.emmett_appends_per_s),
        'ours/ceiling': ratio(summary.ours_appends_per_s, summary.ceiling_tx_per_s),
      },
      'read events/s, 100,000 (median)': {
        ours: Math.round(summary.ours_read_events_per_s),
        emmett: Math.round(summary.emmett_read_events_per_s),
        ceiling: '',
        'ours/emmett': ratio(summary.ours_read_events_per_s, summary.emmett_read_events_per_s),
        'ours/ceiling': '',
      },
      'read events/s, 20,000 (median)': {
        ours: Math.round(summary.ours_read_20k_events_per_s),
        emmett: Math.round(summary.emmett_read_20k_events_per_s),
        ceiling: '',
        'ours/emmett': ratio(summary.ours_read_20k_events_per_s, summary.emmett_read_20k_events_per_s),
        'ours/ceiling': '',
      },
    });
    console.table({
      [`appends/s, ${writers} writers (median)`]: {
        'commits shared': Math.round(summary.ours_appends_per_s),
        'each alone': Math.round(summary.ours_unshared_appends_per_s),
        'shared/alone': ratio(summary.ours_appends_per_s, summary.ours_unshared_appends_per_s),
      },
      [`appends/s, ${manyWriters} writers (median)`]: {
        'commits shared': Math.round(summary.ours_64_writers_appends_per_s),
        'each alone': Math.round(summary.ours_64_writers_unshared_appends_per_s),
        'shared/alone': ratio(
          summary.ours_64_writers_appends_per_s,
          summary.ours_64_writers_unshared_appends_per_s,
        ),
      },
    });

    const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'results', 'event-store.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(
      file,
      `${JSON.stringify(
        {
          ...summary,
          ...ratios,
          setup: {
            streams: streamCount,
            writers,
            many_writers: manyWriters,
            rounds,
            seconds_per_run: seconds,
            fsync: true,
            read_events: readStores.map((store) => store.events),
          },
          rounds: results,
        },
        null,
        2,
      )}\n`,
    );
    console.log(`wrote ${file}`);

    for (const client of ceilingClients) client.release();
    await Promise.all([
      ours.close(),
      oursUnshared.close(),
      emmett.close(),
      ...readDatabases.flatMap((store) => [
        store.oursRead.close(),
        store.emmettRead.close(),
        store.emmettReader.close(),
      ]),
    ]);
    await Promise.all([
      oursPool.end(),
      ceilingPool.end(),
      ...readDatabases.map((store) => store.oursReadPool.end()),
      endAllPools(),
    ]);
  } finally {
    await server.stop();
  }
};
