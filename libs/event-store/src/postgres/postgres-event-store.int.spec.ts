import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { migrate } from '@once/postgres';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { WrongExpectedRevisionError } from '../port/index.js';
import type { EventStore, StreamTailRead } from '../port/index.js';
import { freshStream, someEvents } from '../testing/index.js';
import { describeAppendsTogether } from '../testing/appends-together-contract.js';
import { eventStoreMigrations, migrateEventStore } from './event-store-migrations.js';
import { keepingConnections } from './keeping-connections.js';
import { appendMultiOnPool, appendOnClient, fastAppendMultiStatement } from './postgres-append.js';
import { createPostgresEventStore } from './postgres-event-store.js';
import { readTailsStatements } from './postgres-read.js';
import { appendTogether } from './shared-append.js';

/**
 * The pool, adding to `names` the name of each statement sent with its own `query` (the store's reads; its writes
 * take a connection per statement and are not listed).
 */
const namingStatements = (pool: pg.Pool, names: string[]): pg.Pool =>
  new Proxy(pool, {
    get: (target, property, receiver) =>
      property === 'query'
        ? (...args: unknown[]) => {
            const [statement] = args as [{ name?: string } | string];
            names.push(typeof statement === 'string' ? statement : (statement.name ?? 'unnamed'));
            return (target.query as (...a: unknown[]) => unknown)(...args);
          }
        : Reflect.get(target, property, receiver),
  });

/** A stream named for the readStreamTails tests. */
const tailStream = (): string => freshStream('tail');

/** Two written streams (of two events and of three) and one with only a retention, for the readStreamTails tests. */
const writeTailStreams = async (store: EventStore) => {
  const [two, three, onlyRetention] = [tailStream(), tailStream(), tailStream()];
  await store.appendMulti([
    { stream: two, events: someEvents(2), expectedRevision: 'no_stream' },
    { stream: three, events: someEvents(3), expectedRevision: 'no_stream' },
  ]);
  await store.setStreamRetention(onlyRetention, { maxAgeSeconds: 60 });
  return { two, three, onlyRetention };
};

/**
 * What `readStreamTails` answers for `reads`, in short; the array form, past the prepared lists, must answer the same.
 */
const readTails = async (store: EventStore, reads: readonly StreamTailRead[]) => {
  const tails = await store.readStreamTails(reads);
  const wide = [...reads, ...Array.from({ length: 8 }, () => ({ stream: tailStream(), fromRevision: 0n }))];
  expect((await store.readStreamTails(wide)).slice(0, reads.length)).toEqual(tails);
  return {
    tails,
    summary: tails.map((tail) => ({
      revisions: tail.events.map((event) => event.revision),
      head: tail.head,
      retained: tail.retained,
      skipped: tail.skipped ?? false,
    })),
  };
};

describe('PostgreSQL event store: beyond the shared contract', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase({ poolSize: 12 });
  });
  afterAll(async () => {
    await db.release();
  });

  it('migrates once when two processes start together', async () => {
    const second = new pg.Pool({ connectionString: db.connectionString, max: 2 });
    try {
      const results = await Promise.all([migrateEventStore(db.pool), migrateEventStore(second)]);
      const applied = results.flatMap((result) => result.applied).sort();
      expect(applied).toEqual(eventStoreMigrations.map((migration) => migration.version));
      const stores = [createPostgresEventStore(db.pool), createPostgresEventStore(second)];
      const stream = freshStream();
      await stores[0]?.appendToStream(stream, someEvents(1), { expectedRevision: 'no_stream' });
      expect(await stores[1]?.readStream(stream)).toHaveLength(1);
    } finally {
      await second.end();
    }
  });

  it('refuses a database migrated by the unreleased versions that were folded into version 1', async () => {
    const folded = await createTestDatabase();
    try {
      await migrate(folded.pool, 'event-store', eventStoreMigrations.slice(0, 2));
      await folded.pool.query(
        "INSERT INTO once_migrations (component, version, name) VALUES ('event-store', 3, 'appendMulti as one statement')",
      );
      await expect(migrateEventStore(folded.pool)).rejects.toThrow(/version 3 .*folded into version 1/);
    } finally {
      await folded.release();
    }
  });

  it('refuses a database whose version 2 was written by an unreleased migration of another name', async () => {
    const reused = await createTestDatabase();
    try {
      await migrate(reused.pool, 'event-store', eventStoreMigrations.slice(0, 1));
      await reused.pool.query(
        "INSERT INTO once_migrations (component, version, name) VALUES ('event-store', 2, 'appendMulti in one statement')",
      );
      await expect(migrateEventStore(reused.pool)).rejects.toThrow(/version 2 .*folded into version 1/);
    } finally {
      await reused.release();
    }
  });

  it('ANALYZE gathers statistics of the columns statements filter on, not of data and metadata', async () => {
    const store = createPostgresEventStore(db.pool);
    await store.appendToStream(freshStream('analyzed'), someEvents(20), { expectedRevision: 'no_stream' });
    await db.pool.query('ANALYZE events');
    const { rows } = await db.pool.query<{ attname: string }>(
      `SELECT attname FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'events' ORDER BY attname`,
    );
    const analyzed = rows.map((row) => row.attname);
    expect(analyzed).toEqual(expect.arrayContaining(['stream', 'type', 'recorded_at', 'event_id']));
    expect(analyzed).not.toContain('data');
    expect(analyzed).not.toContain('metadata');
  });

  it('a re-append that waits on its uncommitted original gets the original result, written once', async () => {
    await migrateEventStore(db.pool);
    const store = createPostgresEventStore(db.pool, { migrate: false });
    const stream = freshStream('race');
    await store.appendToStream(stream, someEvents(1), { expectedRevision: 'no_stream' });
    const batch = someEvents(1);

    const original = new pg.Client({ connectionString: db.connectionString });
    await original.connect();
    try {
      await original.query('BEGIN');
      const first = await appendOnClient(original, stream, batch, 0n, null);
      expect(first.kind).toBe('ok');
      // The retry expects the revision the original is about to produce; it waits for the original's row lock.
      const retry = store.appendToStream(stream, batch, { expectedRevision: 1n });
      await new Promise((resolve) => setTimeout(resolve, 200));
      await original.query('COMMIT');
      const result = await retry;
      expect(first.kind === 'ok' && result).toEqual(first.kind === 'ok' && first.result);
    } finally {
      await original.end();
    }
    expect((await store.readStream(stream)).map((event) => event.id)).toHaveLength(2);
  });

  it('an append looks up its event ids in the unique index, whatever the length of the stream', async () => {
    // A database of its own: the global reads of the other tests start at the first event.
    const own = await createTestDatabase();
    const store = createPostgresEventStore(own.pool, { shareCommits: false });
    const [long, short] = [freshStream('long'), freshStream('short')];
    await store.appendToStream(long, someEvents(3_000), { expectedRevision: 'no_stream' });
    await store.appendToStream(short, someEvents(1), { expectedRevision: 'no_stream' });
    const heads = { [long]: 2_999n, [short]: 0n };
    const head = (stream: string) => heads[stream] ?? 0n;
    const client = new pg.Client({ connectionString: own.connectionString });
    await client.connect();
    // The blocks of the store's tables and indexes one write reads, in a transaction of its own that is rolled back.
    // (The counters are this backend's and not yet reported, so they are read before and after.)
    const blocksFetched = async (): Promise<number> => {
      const { rows } = await client.query<{ blocks: number }>(
        `SELECT sum(pg_stat_get_xact_blocks_fetched(c.oid))::integer AS blocks
           FROM pg_class c WHERE c.relname LIKE 'events%' OR c.relname LIKE 'streams%'`,
      );
      return rows[0]?.blocks ?? 0;
    };
    const blocksRead = async (write: () => Promise<unknown>): Promise<number> => {
      await client.query('BEGIN');
      try {
        const before = await blocksFetched();
        await write();
        return (await blocksFetched()) - before;
      } finally {
        await client.query('ROLLBACK');
      }
    };
    const other = () => ({
      stream: freshStream('other'),
      events: someEvents(1),
      expectedRevision: 'no_stream' as const,
    });
    const writes: Record<string, (stream: string) => Promise<unknown>> = {
      'alone, at its head': (stream) => appendOnClient(client, stream, someEvents(1), head(stream), null),
      'alone, with any revision': (stream) => appendOnClient(client, stream, someEvents(1), 'any', null),
      'appendMulti, decided in full': (stream) =>
        appendMultiOnPool(
          client,
          [
            { stream, events: someEvents(1), expectedRevision: head(stream) },
            { ...other(), expectedRevision: 'any' },
          ],
          null,
        ),
      'shared, one stream': (stream) =>
        appendTogether(
          client,
          [
            { kind: 'one', stream, events: someEvents(1), expectedRevision: head(stream) },
            { kind: 'one', ...other() },
          ],
          null,
        ),
      'shared, several streams': (stream) =>
        appendTogether(
          client,
          [
            {
              kind: 'multi',
              appends: [{ stream, events: someEvents(1), expectedRevision: head(stream) }, other()],
            },
            { kind: 'one', ...other() },
          ],
          null,
        ),
    };
    try {
      for (const [name, write] of Object.entries(writes)) {
        const [onLong, onShort] = [await blocksRead(() => write(long)), await blocksRead(() => write(short))];
        // Reading the 3,000 events' ids would take tens of blocks more, whichever index or scan it went through.
        expect(onLong - onShort, name).toBeLessThan(10);
      }
    } finally {
      await client.end();
      await store.close();
      await own.release();
    }
  });

  it('keeps a held transaction out of the global read until it commits', async () => {
    const store = createPostgresEventStore(db.pool);
    const prefix = freshStream('held');
    const held = new pg.Client({ connectionString: db.connectionString });
    await held.connect();
    try {
      await held.query('BEGIN');
      await appendOnClient(held, `${prefix}-early`, someEvents(1), 'no_stream', null);
      await store.appendToStream(`${prefix}-late`, someEvents(1), { expectedRevision: 'no_stream' });
      const before = await store.readAll({ filter: { streamPrefixes: [prefix] } });
      expect(before.events).toEqual([]);
      await held.query('COMMIT');
      const after = await store.readAll({ filter: { streamPrefixes: [prefix] } });
      expect(after.events.map((event) => event.stream)).toEqual([`${prefix}-early`, `${prefix}-late`]);
    } finally {
      await held.end();
    }
  });

  it('a global page reads one row past its end: only a page that ends inside a write sends a second statement', async () => {
    // A database of its own: its global order holds just these writes.
    const own = await createTestDatabase();
    const statements: string[] = [];
    const store = createPostgresEventStore(namingStatements(own.pool, statements));
    try {
      const [one, two, three] = [someEvents(1), someEvents(1), someEvents(3)];
      await store.appendToStream(freshStream('page'), one, { expectedRevision: 'no_stream' });
      await store.appendToStream(freshStream('page'), two, { expectedRevision: 'no_stream' });
      await store.appendToStream(freshStream('page'), three, { expectedRevision: 'no_stream' });
      const restStatements = () =>
        statements.filter((name) => name === 'once_event_store_read_rest_of_transaction').length;

      const first = await store.readAll({ maxCount: 1 });
      expect(first.events.map((event) => event.id)).toEqual(one.map((event) => event.id));
      expect(first.caughtUp).toBe(false);
      expect(restStatements()).toBe(0);

      const ending = await store.readAll({ after: first.checkpoint, maxCount: 2 });
      expect(ending.events.map((event) => event.id)).toEqual([...two, ...three].map((event) => event.id));
      expect(ending.caughtUp).toBe(false);
      expect(restStatements()).toBe(1);

      const last = await store.readAll({ maxCount: 5 });
      expect(last.events).toHaveLength(5);
      expect(last.caughtUp).toBe(true);
      expect(restStatements()).toBe(1);
    } finally {
      await store.close();
      await own.release();
    }
  });

  it('a filtered page sends back the rows it lets through and its last two, and still ends where a write ends', async () => {
    // A database of its own: its global order holds just these writes.
    const own = await createTestDatabase();
    const sent: { name: string; rows: number }[] = [];
    const counting = new Proxy(own.pool, {
      get: (target, property, receiver) =>
        property === 'query'
          ? async (...args: unknown[]) => {
              const [statement] = args as [{ name?: string }];
              const result = (await (target.query as (...a: unknown[]) => Promise<pg.QueryResult>)(
                ...args,
              )) as pg.QueryResult;
              sent.push({ name: statement.name ?? 'unnamed', rows: result.rows.length });
              return result;
            }
          : Reflect.get(target, property, receiver),
    });
    const store = createPostgresEventStore(counting);
    try {
      const [before, wanted, after] = [freshStream('other'), freshStream('wanted'), freshStream('other')];
      await store.appendToStream(before, someEvents(10), { expectedRevision: 'no_stream' });
      await store.appendToStream(wanted, someEvents(2), { expectedRevision: 'no_stream' });
      await store.appendToStream(after, someEvents(10), { expectedRevision: 'no_stream' });
      const filter = { streamPrefixes: [wanted] };

      sent.length = 0;
      const whole = await store.readAll({ filter, maxCount: 100 });
      expect(whole.events.map((event) => event.stream)).toEqual([wanted, wanted]);
      expect(whole.caughtUp).toBe(true);
      // The two events it wants, and the last two of the 22 it scanned.
      expect(sent).toEqual([{ name: 'once_event_store_read_all_filtered', rows: 4 }]);
      expect(whole.checkpoint).toEqual((await store.readAll({ maxCount: 100 })).checkpoint);

      // Six rows scanned, all of the first write: the page ends inside it, so the rest of it is read too.
      sent.length = 0;
      const first = await store.readAll({ filter, maxCount: 5 });
      expect(first.events).toEqual([]);
      expect(first.caughtUp).toBe(false);
      expect(sent.map((statement) => statement.name)).toEqual([
        'once_event_store_read_all_filtered',
        'once_event_store_read_rest_of_transaction',
      ]);
      expect(sent[0]?.rows).toBe(2);
      const second = await store.readAll({ filter, after: first.checkpoint, maxCount: 5 });
      expect(second.events.map((event) => event.stream)).toEqual([wanted, wanted]);
      expect(second.caughtUp).toBe(false);
      const third = await store.readAll({ filter, after: second.checkpoint, maxCount: 5 });
      expect(third).toEqual({ events: [], checkpoint: whole.checkpoint, caughtUp: true });
    } finally {
      await store.close();
      await own.release();
    }
  });

  it('appends made in one turn share one commit, each with its own outcome; shareCommits: false commits each alone', async () => {
    const commitsOf = async (store: EventStore) => {
      const existing = freshStream('shared');
      await store.appendToStream(existing, someEvents(1), { expectedRevision: 'no_stream' });
      const settled = await Promise.allSettled([
        store.appendToStream(freshStream('shared'), someEvents(1), { expectedRevision: 'no_stream' }),
        store.appendToStream(existing, someEvents(1), { expectedRevision: 'no_stream' }),
        store.appendMulti([
          { stream: freshStream('shared'), events: someEvents(1), expectedRevision: 'no_stream' },
          { stream: existing, events: someEvents(1), expectedRevision: 0n },
        ]),
        store.appendToStream(freshStream('shared'), someEvents(2), { expectedRevision: 'any' }),
      ]);
      expect(settled[1]).toMatchObject({ status: 'rejected', reason: { code: 'wrong-expected-revision' } });
      expect((await store.readStream(existing)).map((event) => event.revision)).toEqual([0n, 1n]);
      const commits = new Set(
        settled.flatMap((result) =>
          result.status === 'rejected'
            ? []
            : 'position' in result.value
              ? [result.value.position.commit]
              : result.value.map((written) => written.position.commit),
        ),
      );
      return { commits, refused: settled[1] };
    };
    const shared = await commitsOf(createPostgresEventStore(db.pool));
    expect(shared.commits.size).toBe(1);
    // In call order: the refused no_stream append came before the multi-stream append moved the head.
    expect(shared.refused).toMatchObject({ reason: { actual: 0n } });
    // Each alone, in whatever order they arrive.
    expect((await commitsOf(createPostgresEventStore(db.pool, { shareCommits: false }))).commits.size).toBe(
      3,
    );
  });

  it('appends write no temporary files once the statistics count a stream for every key', async () => {
    // A database of its own, whose statistics say what a busy store's say: every key is a stream of its own (200,000
    // of them). Under load the api's plans joined by hash there; merge joins are off so that they do here too.
    const own = await createTestDatabase({ poolSize: 1 });
    const files: string[] = [];
    let watching = false;
    const pool = new pg.Pool({ connectionString: own.connectionString, max: 4 });
    pool.on('connect', (client) => {
      client.on('notice', (notice) => {
        if (watching && notice.message?.startsWith('temporary file')) files.push(notice.message);
      });
      void client.query('SET log_temp_files = 0; SET client_min_messages = log; SET enable_mergejoin = off');
    });
    try {
      const store = createPostgresEventStore(pool);
      const invoices = [freshStream('stats'), freshStream('stats'), freshStream('stats')];
      for (const invoice of invoices) {
        await store.appendToStream(invoice, someEvents(1), { expectedRevision: 'no_stream' });
      }
      await pool.query(
        `INSERT INTO events (stream, revision, event_id, type, data)
         SELECT 'stats-key-' || g, 0, gen_random_uuid(), 'T', '{}' FROM generate_series(1, 200000) g`,
      );
      await pool.query('ANALYZE events');
      watching = true;
      const keyedPayment = (invoice: string, revision: bigint) =>
        store.appendMulti([
          { stream: freshStream('key'), events: someEvents(1), expectedRevision: 'no_stream' },
          { stream: invoice, events: someEvents(1), expectedRevision: revision, expectNoRetention: true },
        ]);
      // Alone in its turn (the fast statement), then three in one turn (one shared statement).
      await keyedPayment(invoices[0] as string, 0n);
      await Promise.all([
        keyedPayment(invoices[0] as string, 1n),
        keyedPayment(invoices[1] as string, 0n),
        keyedPayment(invoices[2] as string, 0n),
      ]);
      expect((await store.readStream(invoices[0] as string)).map((event) => event.revision)).toEqual([
        0n,
        1n,
        2n,
      ]);
      expect(files).toEqual([]);
    } finally {
      await pool.end();
      await own.release();
    }
  });

  it('a multi-stream append whose head does not move is put back and sent alone, with the appends after it on its streams', async () => {
    const store = createPostgresEventStore(db.pool);
    const [existing, created] = [freshStream('put-back'), freshStream('put-back')];
    await store.appendToStream(existing, someEvents(2), { expectedRevision: 'no_stream' });
    const settled = await Promise.allSettled([
      store.appendToStream(freshStream('put-back'), someEvents(1), { expectedRevision: 'no_stream' }),
      store.appendMulti([
        { stream: created, events: someEvents(1), expectedRevision: 'no_stream' },
        { stream: existing, events: someEvents(1), expectedRevision: 0n },
      ]),
      store.appendToStream(created, someEvents(2), { expectedRevision: 'no_stream' }),
      store.appendToStream(freshStream('put-back'), someEvents(1), { expectedRevision: 'any' }),
    ]);
    const [first, refused, after, last] = settled;
    expect(refused).toMatchObject({ status: 'rejected', reason: { stream: existing, actual: 1n } });
    if (first?.status !== 'fulfilled' || after?.status !== 'fulfilled' || last?.status !== 'fulfilled') {
      throw new Error(`expected the other appends to land: ${JSON.stringify(settled.map((s) => s.status))}`);
    }
    // The first and the last shared the statement; the one after the put-back write was sent alone, after it.
    expect(last.value.position.commit).toBe(first.value.position.commit);
    expect(after.value.position.commit).not.toBe(first.value.position.commit);
    expect(after.value.nextExpectedRevision).toBe(1n);
    expect(await store.readStream(created)).toHaveLength(2);
    expect(await store.readStream(existing)).toHaveLength(2);
  });

  it('multi-stream appends sharing a commit set each stream the retention it carries, new and existing streams', async () => {
    const store = createPostgresEventStore(db.pool);
    const [existing, kept, plain, other] = ['existing', 'kept', 'plain', 'other'].map((label) =>
      freshStream(`shared-retention-${label}`),
    ) as [string, string, string, string];
    await store.appendToStream(existing, someEvents(1), { expectedRevision: 'no_stream' });
    const [withRetention, without] = await Promise.all([
      store.appendMulti([
        {
          stream: kept,
          events: someEvents(1),
          expectedRevision: 'no_stream',
          retention: { maxAgeSeconds: 60 },
        },
        { stream: existing, events: someEvents(1), expectedRevision: 0n, retention: { truncateBefore: 1n } },
      ]),
      store.appendMulti([
        { stream: plain, events: someEvents(1), expectedRevision: 'no_stream' },
        { stream: other, events: someEvents(1), expectedRevision: 'no_stream' },
      ]),
    ]);
    expect(withRetention?.[0]?.position.commit).toBe(without?.[0]?.position.commit);
    const tails = await store.readStreamTails(
      [kept, existing, plain, other].map((stream) => ({ stream, fromRevision: 0n })),
    );
    expect(
      tails.map((tail) => ({ retained: tail.retained, revisions: tail.events.map((e) => e.revision) })),
    ).toEqual([
      { retained: true, revisions: [0n] },
      { retained: true, revisions: [1n] },
      { retained: false, revisions: [0n] },
      { retained: false, revisions: [0n] },
    ]);
  });

  it('refuses a negative wait for shared commits', () => {
    expect(() => createPostgresEventStore(db.pool, { shareCommitsWaitMicroseconds: -1 })).toThrow(RangeError);
  });

  let unshared: EventStore | undefined;
  describeAppendsTogether(() => (unshared ??= createPostgresEventStore(db.pool, { shareCommits: false })), {
    semantics: 'strict',
    appendsInCallOrder: false,
  });

  it('multi-stream appends at explicit revisions in opposite stream orders all land, each once', async () => {
    // The fast statement hands a conflict, and a lock-order deadlock between two of its kind, to the full function:
    // a writer sees a wrong revision (and re-reads) or lands, never an error of another kind.
    const store = createPostgresEventStore(db.pool);
    const [a, b] = [freshStream('fast-pair'), freshStream('fast-pair')];
    await store.appendMulti([
      { stream: a, events: someEvents(1), expectedRevision: 'no_stream' },
      { stream: b, events: someEvents(1), expectedRevision: 'no_stream' },
    ]);
    const writers = 8;
    const written = await Promise.all(
      Array.from({ length: writers }, async (_, index) => {
        const events = { [a]: someEvents(1), [b]: someEvents(1) };
        for (let attempt = 0; ; attempt++) {
          const [readA, readB] = await Promise.all([store.readStream(a), store.readStream(b)]);
          const heads = { [a]: readA.at(-1)?.revision ?? 0n, [b]: readB.at(-1)?.revision ?? 0n };
          const order = index % 2 === 0 ? [a, b] : [b, a];
          try {
            await store.appendMulti(
              order.map((stream) => ({
                stream,
                events: events[stream] ?? [],
                expectedRevision: heads[stream] ?? 0n,
              })),
            );
            return events;
          } catch (error) {
            if (!(error instanceof WrongExpectedRevisionError) || attempt > 50) throw error;
          }
        }
      }),
    );
    for (const stream of [a, b]) {
      const read = await store.readStream(stream);
      expect(read.map((event) => event.revision)).toEqual(
        Array.from({ length: writers + 1 }, (_, revision) => BigInt(revision)),
      );
      expect(new Set(read.slice(1).map((event) => event.id))).toEqual(
        new Set(written.map((events) => events[stream]?.[0]?.id)),
      );
    }
  });

  it('a multi-stream append chosen as a deadlock victim is decided again, and lands once', async () => {
    const store = createPostgresEventStore(db.pool);
    const [a, b] = [`${freshStream('victim')}-a`, `${freshStream('victim')}-b`].sort();
    const firstA = someEvents(1);
    await store.appendMulti([
      { stream: a as string, events: firstA, expectedRevision: 'no_stream' },
      { stream: b as string, events: someEvents(1), expectedRevision: 'no_stream' },
    ]);
    const other = await db.pool.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT 1 FROM streams WHERE stream = $1 FOR UPDATE', [b]);
      const events = someEvents(2);
      // Locks a, then waits for b; the other session then waits for a: a cycle, broken by aborting the first waiter.
      const landing = store.appendMulti([
        { stream: a as string, events: events.slice(0, 1), expectedRevision: 0n },
        { stream: b as string, events: events.slice(1), expectedRevision: 0n },
      ]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      // PostgreSQL aborts whichever waiter checks first; on a loaded machine that can be this session. Either way the
      // append must land exactly once.
      await other.query('SELECT 1 FROM streams WHERE stream = $1 FOR UPDATE', [a]).catch((error: unknown) => {
        if ((error as { code?: string }).code !== '40P01') throw error;
      });
      await other.query('ROLLBACK');
      const results = await landing;
      expect(results.map((result) => result.nextExpectedRevision)).toEqual([1n, 1n]);
      expect((await store.readStream(a as string)).map((event) => event.id)).toEqual([
        firstA[0]?.id,
        events[0]?.id,
      ]);
    } finally {
      await other.query('ROLLBACK').catch(() => undefined);
      other.release();
    }
  });

  it('readStreamTails reads each stream from its own revision, with its head and whether it has a retention', async () => {
    const store = createPostgresEventStore(db.pool);
    const [plain, kept, early, absent] = [tailStream(), tailStream(), tailStream(), tailStream()];
    await store.appendMulti([
      { stream: plain, events: someEvents(4), expectedRevision: 'no_stream' },
      {
        stream: kept,
        events: someEvents(3),
        expectedRevision: 'no_stream',
        retention: { truncateBefore: 1n },
      },
    ]);
    await store.setStreamRetention(early, { maxAgeSeconds: 60 });
    const { tails, summary } = await readTails(store, [
      { stream: plain, fromRevision: 2n },
      { stream: kept, fromRevision: 0n },
      { stream: plain, fromRevision: 4n },
      { stream: early, fromRevision: 0n },
      { stream: absent, fromRevision: 0n },
    ]);
    expect(summary.map(({ revisions, head, retained }) => ({ revisions, head, retained }))).toEqual([
      { revisions: [2n, 3n], head: 3n, retained: false },
      { revisions: [1n, 2n], head: 2n, retained: true },
      { revisions: [], head: 3n, retained: false },
      { revisions: [], head: undefined, retained: true },
      { revisions: [], head: undefined, retained: false },
    ]);
    expect(tails[0]?.events).toEqual((await store.readStream(plain)).slice(2));
  });

  it('tail reads asked for in one turn go out as one statement, each answered as it would be alone', async () => {
    const statements: string[] = [];
    const store = createPostgresEventStore(namingStatements(db.pool, statements));
    const { two, three, onlyRetention } = await writeTailStreams(store);
    const asks: StreamTailRead[][] = [
      [{ stream: two, fromRevision: 1n }],
      [
        { stream: three, fromRevision: 0n },
        { stream: onlyRetention, fromRevision: 0n },
      ],
      [{ stream: two, fromRevision: 0n, unlessExists: three }],
      [{ stream: tailStream(), fromRevision: 0n }],
    ];
    statements.length = 0;
    const together = await Promise.all(asks.map((reads) => store.readStreamTails(reads)));
    expect(statements).toEqual([readTailsStatements[4]?.name]);

    const aloneStatements: string[] = [];
    const alone = createPostgresEventStore(namingStatements(db.pool, aloneStatements), {
      migrate: false,
      coalesceReads: false,
    });
    expect(together).toEqual(await Promise.all(asks.map((reads) => alone.readStreamTails(reads))));
    expect(aloneStatements).toEqual(asks.map((reads) => readTailsStatements[reads.length - 1]?.name));
    expect(together.map((tails) => tails.map((tail) => tail.events.length))).toEqual([[1], [3, 0], [0], [0]]);
  });

  it('a tail read PostgreSQL refuses fails alone, and the reads asked for with it are answered', async () => {
    const store = createPostgresEventStore(db.pool);
    const { two, three } = await writeTailStreams(store);
    const [before, refused, after] = await Promise.allSettled([
      store.readStreamTails([{ stream: two, fromRevision: 0n }]),
      // A text value cannot hold a NUL character: the statement that lists it fails.
      store.readStreamTails([{ stream: `${tailStream()}\u0000`, fromRevision: 0n }]),
      store.readStreamTails([{ stream: three, fromRevision: 2n }]),
    ]);
    expect(refused?.status).toBe('rejected');
    expect(before?.status === 'fulfilled' && before.value?.map((tail) => tail.events.length)).toEqual([2]);
    expect(after?.status === 'fulfilled' && after.value?.map((tail) => tail.head)).toEqual([2n]);
  });

  /** Runs `test` on a pool of one connection, whose backend it may end (pg-pool then reports that on the pool). */
  const onOneConnection = async (test: (pool: pg.Pool) => Promise<void>): Promise<void> => {
    const pool = new pg.Pool({ connectionString: db.connectionString, max: 1 });
    pool.on('error', () => undefined);
    try {
      await test(pool);
    } finally {
      await pool.end();
    }
  };

  /** The process id of the backend that runs the next statement sent through `pool`. */
  const backendOf = async (pool: Pick<pg.Pool, 'query'>) =>
    (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;

  it('an append that loses a race keeps its connection; a connection the server ended is replaced', async () => {
    await onOneConnection(async (pool) => {
      const store = createPostgresEventStore(pool);
      const [single, other] = [freshStream('keep'), freshStream('keep')];
      await store.appendMulti([
        { stream: single, events: someEvents(1), expectedRevision: 'no_stream' },
        { stream: other, events: someEvents(1), expectedRevision: 'no_stream' },
      ]);
      const before = await backendOf(pool);
      // Both statements of a lost multi-stream append fail (the fast one, then the full function), and so does the
      // single-stream append: each is a statement error, not a broken connection.
      await expect(
        store.appendMulti([
          { stream: single, events: someEvents(1), expectedRevision: 'no_stream' },
          { stream: other, events: someEvents(1), expectedRevision: 0n },
        ]),
      ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(
        store.appendToStream(single, someEvents(1), { expectedRevision: 5n }),
      ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      expect(await backendOf(pool)).toBe(before);

      await db.pool.query('SELECT pg_terminate_backend($1)', [before]);
      await expect.poll(async () => (await store.readStream(single).catch(() => undefined))?.length).toBe(1);
      expect(await backendOf(pool)).not.toBe(before);
    });
  });

  it('a write whose connection the server ends while it runs fails, and the next one gets a new connection', async () => {
    await onOneConnection(async (pool) => {
      const writes = keepingConnections(pool);
      const before = await backendOf(writes);
      await expect(writes.query('SELECT no_such_column FROM streams')).rejects.toMatchObject({
        code: '42703',
      });
      expect(await backendOf(writes)).toBe(before);
      // Caught at once: the statement may fail before the termination below answers.
      const sleeping = writes.query('SELECT pg_sleep(30)').then(
        () => undefined,
        (error: unknown) => error,
      );
      await expect
        .poll(
          async () =>
            (
              await db.pool.query<{ count: string }>(
                `SELECT count(*) AS count FROM pg_stat_activity WHERE pid = $1 AND query LIKE 'SELECT pg_sleep%'`,
                [before],
              )
            ).rows[0]?.count,
        )
        .toBe('1');
      await db.pool.query('SELECT pg_terminate_backend($1)', [before]);
      expect(await sleeping).toBeInstanceOf(Error);
      const after = await backendOf(writes);
      expect(after).toBeDefined();
      expect(after).not.toBe(before);
    });
  });

  it('an append finds the heads it moves through the primary key, however many streams there are', async () => {
    const store = createPostgresEventStore(db.pool);
    const [moved, created] = [freshStream('plan'), freshStream('plan')];
    await store.appendToStream(moved, someEvents(1), { expectedRevision: 'no_stream' });
    await db.pool.query(
      `INSERT INTO streams (stream, revision) SELECT 'plan-bulk-' || g || '-' || $1, 0 FROM generate_series(1, 5000) g`,
      [moved],
    );
    await db.pool.query('ANALYZE streams');
    const client = await db.pool.connect();
    try {
      // The plan every execution gets once PostgreSQL settles on the statement's generic plan.
      await client.query('BEGIN');
      await client.query('SET LOCAL plan_cache_mode = force_generic_plan');
      const heads = [
        {
          ord: 1,
          stream: moved,
          expected: '0',
          count: 1,
          keep: false,
          max_age_seconds: null,
          truncate_before: null,
          no_retention: true,
        },
        {
          ord: 2,
          stream: created,
          expected: '-1',
          count: 1,
          keep: false,
          max_age_seconds: null,
          truncate_before: null,
          no_retention: true,
        },
      ];
      const events = [moved, created].map((stream) => ({
        stream,
        ord: 1,
        id: randomUUID(),
        type: 'T',
        data: {},
      }));
      const { rows } = await client.query<{ 'QUERY PLAN': unknown }>({
        text: `EXPLAIN (FORMAT JSON) ${fastAppendMultiStatement.text}`,
        values: [JSON.stringify(heads), JSON.stringify(events), null],
      });
      const scans = JSON.stringify(rows[0]?.['QUERY PLAN']).match(
        /"Node Type":"Seq Scan","[^}]*?"Relation Name":"streams"/g,
      );
      expect(scans).toBeNull();
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('a guarded multi-stream append is planned once per connection, not on every call', async () => {
    // PostgreSQL plans a prepared statement afresh on each of its first five calls, then keeps its generic plan unless
    // that plan looks dearer than the ones made for the values given. Nothing in the append's parameters may make it
    // look dearer, on a streams table of any size.
    await migrateEventStore(db.pool);
    await db.pool.query(
      `INSERT INTO streams (stream, revision) SELECT 'cache-bulk-' || g || '-' || $1, 0 FROM generate_series(1, 5000) g`,
      [randomUUID()],
    );
    await db.pool.query('ANALYZE streams');
    const onePool = new pg.Pool({ connectionString: db.connectionString, max: 1 });
    try {
      const store = createPostgresEventStore(onePool);
      const shared = freshStream('cache');
      await store.appendToStream(shared, someEvents(1), { expectedRevision: 'no_stream' });
      for (let call = 0; call < 12; call++) {
        await store.appendMulti([
          {
            stream: freshStream('cache-key'),
            events: someEvents(1),
            expectedRevision: 'no_stream',
            retention: { maxAgeSeconds: 60 },
          },
          { stream: shared, events: someEvents(1), expectedRevision: BigInt(call), expectNoRetention: true },
        ]);
      }
      const { rows } = await onePool.query<{ generic_plans: string; custom_plans: string }>(
        `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'once_event_store_fast_append_multi'`,
      );
      expect(
        rows.map((row) => ({ generic: Number(row.generic_plans), custom: Number(row.custom_plans) })),
      ).toEqual([{ generic: 7, custom: 5 }]);
    } finally {
      await onePool.end();
    }
  });

  it('readStreamTails skips a read whose unlessExists stream has a head, and says so', async () => {
    const store = createPostgresEventStore(db.pool);
    const { two, three, onlyRetention } = await writeTailStreams(store);
    const never = tailStream();
    const { summary } = await readTails(store, [
      { stream: two, fromRevision: 0n, unlessExists: three },
      { stream: two, fromRevision: 1n, unlessExists: onlyRetention },
      { stream: two, fromRevision: 0n, unlessExists: never },
      { stream: three, fromRevision: 1n, unlessExists: never },
      { stream: never, fromRevision: 0n, unlessExists: two },
    ]);
    expect(summary.map(({ revisions, head, skipped }) => ({ revisions, head, skipped }))).toEqual([
      { revisions: [], head: undefined, skipped: true },
      { revisions: [1n], head: 1n, skipped: false },
      { revisions: [0n, 1n], head: 1n, skipped: false },
      { revisions: [1n, 2n], head: 2n, skipped: false },
      { revisions: [], head: undefined, skipped: true },
    ]);
  });

  it('a tail read probes the events only of streams with something past the revision it reads from', async () => {
    const store = createPostgresEventStore(db.pool);
    const { two } = await writeTailStreams(store);
    const reads = [
      { stream: tailStream(), fromRevision: 0n },
      { stream: two, fromRevision: 2n },
      { stream: two, fromRevision: 1n },
    ];
    const statement = readTailsStatements[reads.length - 1];
    const { rows } = await db.pool.query<{ 'QUERY PLAN': unknown }>({
      text: `EXPLAIN (ANALYZE, FORMAT JSON) ${statement?.text ?? ''}`,
      values: [...reads.flatMap((read) => [read.stream, read.fromRevision.toString(), null]), null],
    });
    // A stream with no row and one whose head is below the revision read from: their scans never run.
    const loops = JSON.stringify(rows[0]?.['QUERY PLAN'])
      .match(/"Relation Name":"events"[^}]*?"Actual Loops":\d+/g)
      ?.map((scan) => Number(/"Actual Loops":(\d+)/.exec(scan)?.[1]));
    expect(loops).toEqual([1]);
  });

  it('a skipped tail read costs the lookup of its unlessExists stream alone, and sends no row', async () => {
    const store = createPostgresEventStore(db.pool);
    const { two, three } = await writeTailStreams(store);
    const reads = [
      { stream: two, fromRevision: 0n, unlessExists: null },
      { stream: three, fromRevision: 0n, unlessExists: two },
      { stream: tailStream(), fromRevision: 0n, unlessExists: two },
    ];
    const statement = readTailsStatements[reads.length - 1];
    const values = [
      ...reads.flatMap((read) => [read.stream, read.fromRevision.toString(), read.unlessExists]),
      null,
    ];
    const { rows } = await db.pool.query<{ ord: number }>({ text: statement?.text ?? '', values });
    expect(rows.map((row) => row.ord)).toEqual([1, 1]);
    const { rows: plan } = await db.pool.query<{ 'QUERY PLAN': unknown }>({
      text: `EXPLAIN (ANALYZE, FORMAT JSON) ${statement?.text ?? ''}`,
      values,
    });
    const loops = (alias: string) =>
      JSON.stringify(plan[0]?.['QUERY PLAN'])
        .match(new RegExp(`"Alias":"${alias}"[^}]*?"Actual Loops":\\d+`, 'g'))
        ?.map((scan) => Number(/"Actual Loops":(\d+)/.exec(scan)?.[1]));
    // Only the read that was not skipped looks up its head and scans its events.
    expect(loops('h')).toEqual([1]);
    expect(loops('e')).toEqual([1]);
  });

  it('a retention set before the first append rides on the stream row; the stream still reads and appends as absent', async () => {
    const store = createPostgresEventStore(db.pool);
    const stream = freshStream('kept-early');
    await store.setStreamRetention(stream, { truncateBefore: 1n });
    expect(await store.readStream(stream)).toEqual([]);
    await expect(store.appendToStream(stream, someEvents(1), { expectedRevision: 0n })).rejects.toMatchObject(
      {
        actual: 'no_stream',
      },
    );
    await expect(
      store.appendToStream(stream, someEvents(1), { expectedRevision: 'stream_exists' }),
    ).rejects.toMatchObject({ actual: 'no_stream' });
    await expect(
      store.appendMulti([{ stream, events: someEvents(1), expectedRevision: 0n }]),
    ).rejects.toMatchObject({ actual: 'no_stream' });
    const written = await store.appendToStream(stream, someEvents(2), { expectedRevision: 'no_stream' });
    expect(written.nextExpectedRevision).toBe(1n);
    expect((await store.readStream(stream)).map((event) => event.revision)).toEqual([1n]);

    const other = freshStream('kept-early');
    await store.setStreamRetention(other, { maxAgeSeconds: 3600 });
    const [result] = await store.appendMulti([
      {
        stream: other,
        events: someEvents(2),
        expectedRevision: 'no_stream',
        retention: { truncateBefore: 1n },
      },
    ]);
    expect(result?.nextExpectedRevision).toBe(1n);
    expect((await store.readStream(other)).map((event) => event.revision)).toEqual([1n]);
  });

  it('closing the store ends its subscriptions cleanly and leaves the pool open', async () => {
    const store = createPostgresEventStore(db.pool);
    const subscription = store.subscribeToAll({ onBatch: async () => undefined, pollIntervalMs: 5 });
    await new Promise((resolve) => setTimeout(resolve, 30));
    await store.close();
    await expect(subscription.done).resolves.toBeUndefined();
    expect((await db.pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});
