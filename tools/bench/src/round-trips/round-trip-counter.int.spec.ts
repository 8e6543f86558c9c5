import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventStoreDBClient } from '@eventstore/db-client';
import { createEventStoreDbEventStore } from '@once/event-store/eventstoredb';
import { createPostgresEventStore } from '@once/event-store/postgres';
import { freshStream, someEvents, startWireEventStoreDb } from '@once/event-store/testing';
import type { WireEventStoreDb } from '@once/event-store/testing';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { countingEventStoreDbClient } from './counting-eventstoredb-client.js';
import { countingPool } from './counting-pool.js';
import { createRoundTripCounter } from './round-trip-counter.js';

describe('round trips counted from outside the PostgreSQL adapter', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    // One connection: a statement that waits for it still counts for the operation that sent it.
    db = await createTestDatabase({ poolSize: 1 });
  });
  afterAll(async () => {
    await db.release();
  });

  it('counts each statement for the operation that sent it, and nothing sent outside one', async () => {
    const counter = createRoundTripCounter();
    const raw = createPostgresEventStore(countingPool(db.pool, counter));
    const store = counter.around(raw);
    const [first, second] = [freshStream('counted'), freshStream('counted')];

    await store.appendToStream(first, someEvents(2), { expectedRevision: 'no_stream' });
    await Promise.all([
      store.appendToStream(second, someEvents(1), { expectedRevision: 'no_stream' }),
      store.readStream(first),
    ]);
    await store.appendMulti([
      { stream: first, events: someEvents(1), expectedRevision: 1n },
      { stream: second, events: someEvents(1), expectedRevision: 0n },
    ]);
    // Tail reads asked for in one turn go out as one statement.
    await Promise.all([
      store.readStreamTails([{ stream: first, fromRevision: 0n }]),
      store.readStreamTails([{ stream: second, fromRevision: 0n }]),
    ]);
    await raw.readStream(second);

    expect(Object.fromEntries(counter.counts)).toEqual({
      appendToStream: 2,
      readStream: 1,
      appendMulti: 1,
      readStreamTails: 1,
    });
    await raw.close();
  });
});

describe('round trips counted from outside the EventStoreDB adapter', () => {
  let wire: WireEventStoreDb;
  beforeAll(async () => {
    wire = await startWireEventStoreDb();
  });
  afterAll(async () => {
    await wire.stop();
  });

  it('counts each call of the client, a metadata read as a readStream', async () => {
    const counter = createRoundTripCounter();
    const client = EventStoreDBClient.connectionString(wire.connectionString);
    const raw = createEventStoreDbEventStore(countingEventStoreDbClient(client, counter));
    const store = counter.around(raw);
    const stream = `counted-${randomUUID()}`;

    await store.appendToStream(stream, someEvents(1), { expectedRevision: 'no_stream' });
    // A retention on a stream that exists: its metadata read, then written, then the events.
    await store.appendToStream(stream, someEvents(1), {
      expectedRevision: 0n,
      retention: { maxAgeSeconds: 60 },
    });
    expect(await store.readStream(stream)).toHaveLength(2);
    await raw.readStream(stream);

    expect(Object.fromEntries(counter.counts)).toEqual({ appendToStream: 3, readStream: 2 });
    await raw.close();
    await client.dispose();
  });
});
