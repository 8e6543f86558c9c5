import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { freshStream, someEvents } from '../testing/index.js';
import { eventStoreMigrations, migrateEventStore } from './event-store-migrations.js';
import { appendOnClient } from './postgres-append.js';
import { createPostgresEventStore } from './postgres-event-store.js';

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
      await migrateEventStore(folded.pool);
      await folded.pool.query(
        "INSERT INTO once_migrations (component, version, name) VALUES ('event-store', 3, 'appendMulti as one statement')",
      );
      await expect(migrateEventStore(folded.pool)).rejects.toThrow(/version 3.*folded into version 1/);
    } finally {
      await folded.release();
    }
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

  it('readStreams answers each stream as readStream does, in the order asked, in one statement', async () => {
    const store = createPostgresEventStore(db.pool);
    const [first, second, truncated, absent] = [
      freshStream('rs'),
      freshStream('rs'),
      freshStream('rs'),
      freshStream('rs'),
    ];
    await store.appendMulti([
      { stream: first, events: someEvents(3), expectedRevision: 'no_stream' },
      { stream: second, events: someEvents(1), expectedRevision: 'no_stream' },
      {
        stream: truncated,
        events: someEvents(2),
        expectedRevision: 'no_stream',
        retention: { truncateBefore: 1n },
      },
    ]);
    const asked = [second, absent, truncated, first, second];
    const many = await store.readStreams?.(asked);
    expect(many).toEqual(await Promise.all(asked.map((stream) => store.readStream(stream))));
    expect(many?.map((events) => events.map((event) => event.revision))).toEqual([
      [0n],
      [],
      [1n],
      [0n, 1n, 2n],
      [0n],
    ]);
    expect(await store.readStreams?.([])).toEqual([]);
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
