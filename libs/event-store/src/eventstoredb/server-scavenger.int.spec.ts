import { randomUUID } from 'node:crypto';
import { EventStoreDBClient } from '@eventstore/db-client';
import { createTestDatabase, waitFor } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventStore } from '../port/index.js';
import { someEvents } from '../testing/index.js';
import { startWireEventStoreDb } from '../testing/index.js';
import type { WireEventStoreDb } from '../testing/index.js';
import { createEventStoreDbEventStore } from './eventstoredb-event-store.js';
import { serverScavengerLockKey, startServerScavenger } from './server-scavenger.js';
import type { ServerScavengeRound } from './server-scavenger.js';

// The schedule of EventStoreDB scavenges: one leader among the processes sharing a PostgreSQL database, and each of
// its scavenges started on the server (the wire-level test server, whose clock the test moves) through the client.

describe('the EventStoreDB scavenge schedule', () => {
  let db: TestDatabase;
  let server: WireEventStoreDb;
  let client: EventStoreDBClient;
  let store: EventStore;
  let nowMs = Date.now();

  beforeAll(async () => {
    db = await createTestDatabase({ poolSize: 6 });
    server = await startWireEventStoreDb({ now: () => new Date(nowMs) });
    client = EventStoreDBClient.connectionString(server.connectionString);
    store = createEventStoreDbEventStore(client);
  });
  afterAll(async () => {
    await store.close();
    await client.dispose();
    await server.stop();
    await db.release();
  });

  const streamsInAll = async () =>
    new Set((await client.readAll().toArray()).map((resolved) => resolved.event?.streamId));

  it('only the leader starts scavenges, which remove what $maxAge expired; another process leads once it stops', async () => {
    const expiring = `scheduled-${randomUUID()}`;
    await store.appendToStream(expiring, someEvents(2), {
      expectedRevision: 'no_stream',
      retention: { maxAgeSeconds: 60 },
    });
    nowMs += 61_000;
    expect(await streamsInAll()).toContain(expiring);

    const started: Extract<ServerScavengeRound, { led: true }>[] = [];
    const options = { store, pool: db.pool, intervalMs: 3_600_000, now: () => new Date(nowMs) };
    const first = startServerScavenger({ ...options, onScavenge: (round) => started.push(round) });
    const second = startServerScavenger({ ...options, onScavenge: (round) => started.push(round) });
    try {
      expect(await first.runRound()).toMatchObject({ led: true, scavengeId: expect.any(String) });
      expect(await second.runRound()).toEqual({ led: false });
      expect(await first.runRound()).toMatchObject({ led: true });
      expect(started).toHaveLength(2);
      expect(started[0]?.startedAt).toEqual(new Date(nowMs));
      expect(await streamsInAll()).not.toContain(expiring);

      await first.stop();
      expect(await second.runRound()).toMatchObject({ led: true });
      expect(started).toHaveLength(3);
    } finally {
      await first.stop();
      await second.stop();
    }
  });

  it('a leader whose connection broke leads no more; the lock goes with the session', async () => {
    const leader = startServerScavenger({ store, pool: db.pool, intervalMs: 3_600_000 });
    const other = startServerScavenger({ store, pool: db.pool, intervalMs: 3_600_000 });
    try {
      expect(await leader.runRound()).toMatchObject({ led: true });
      const lockHolders = `FROM pg_locks
          WHERE locktype = 'advisory' AND ((classid::bigint << 32) | objid::bigint) = $1`;
      await db.pool.query(`SELECT pg_terminate_backend(pid) ${lockHolders}`, [serverScavengerLockKey]);
      // pg_terminate_backend only signals: the lock goes when the backend has ended.
      await waitFor(
        async () => (await db.pool.query(`SELECT 1 ${lockHolders}`, [serverScavengerLockKey])).rowCount === 0,
        'the broken leader to release the lock',
      );
      expect(await other.runRound()).toMatchObject({ led: true });
      expect(await leader.runRound()).toEqual({ led: false });
    } finally {
      await leader.stop();
      await other.stop();
    }
  });
});
