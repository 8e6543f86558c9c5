import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import type { EventStore } from '../port/index.js';
import { freshStream, someEvents } from '../testing/index.js';
import { createPostgresEventStore } from './postgres-event-store.js';
import { startStreamScavenger } from './stream-scavenger.js';

describe('the stream scavenger', () => {
  let db: TestDatabase;
  let store: EventStore;
  let clock = new Date('2030-01-01T00:00:00Z');
  const advance = (seconds: number): void => {
    clock = new Date(clock.getTime() + seconds * 1000);
  };

  const storage = async (): Promise<{ events: number; streams: number }> => {
    const { rows } = await db.pool.query<{ events: string; streams: string }>(
      'SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM streams) AS streams',
    );
    return { events: Number(rows[0]?.events), streams: Number(rows[0]?.streams) };
  };

  beforeAll(async () => {
    db = await createTestDatabase({ poolSize: 6 });
    store = createPostgresEventStore(db.pool, { now: () => clock });
    await store.appendToStream(freshStream(), someEvents(2), { expectedRevision: 'no_stream' });
  });
  afterAll(async () => {
    await store.close();
    await db.release();
  });

  it('returns storage to its baseline once short-lived streams expire, in bounded batches, keeping the rest', async () => {
    const removedByRound: number[] = [];
    const told: string[] = [];
    const scavenger = startStreamScavenger({
      pool: db.pool,
      intervalMs: 3_600_000,
      batchSize: 7,
      batchesPerRound: 2,
      now: () => clock,
      onStreamsRemoved: async (streams) => {
        told.push(...streams);
      },
      onRound: (round) => removedByRound.push(round.removedStreams),
    });
    try {
      const kept = freshStream();
      await store.appendToStream(kept, someEvents(1), {
        expectedRevision: 'no_stream',
        retention: { maxAgeSeconds: 7 * 86_400 },
      });
      const baseline = await storage();

      const shortLived = Array.from({ length: 40 }, () => freshStream());
      for (const stream of shortLived) {
        await store.appendToStream(stream, someEvents(3), {
          expectedRevision: 'no_stream',
          retention: { maxAgeSeconds: 60 },
        });
      }
      expect(await storage()).toEqual({ events: baseline.events + 120, streams: baseline.streams + 40 });

      advance(30);
      expect((await scavenger.runRound()).removedStreams).toBe(0);

      // One stream is written again before the others expire: its last event is young, so it stays.
      const [renewed] = shortLived;
      await store.appendToStream(renewed as string, someEvents(1), { expectedRevision: 2n });
      advance(31);
      let rounds = 0;
      while (told.length < 39 && rounds++ < 20) await scavenger.runRound();

      expect(new Set(told)).toEqual(new Set(shortLived.slice(1)));
      expect(Math.max(...removedByRound)).toBeLessThanOrEqual(14);
      expect(await storage()).toEqual({ events: baseline.events + 4, streams: baseline.streams + 1 });
      expect(await store.readStream(kept)).toHaveLength(1);

      advance(60);
      while ((await scavenger.runRound()).removedStreams === 0 && rounds++ < 40);
      expect(await storage()).toEqual(baseline);

      // A removed stream is a new stream again (an expired idempotency key may be used anew).
      await store.appendToStream(shortLived[1] as string, someEvents(1), { expectedRevision: 'no_stream' });
      expect(await store.readStream(shortLived[1] as string)).toHaveLength(1);
    } finally {
      await scavenger.stop();
    }
  });

  it('never removes a stream without an age retention, however old: none at all, or truncateBefore only', async () => {
    const told: string[] = [];
    const scavenger = startStreamScavenger({
      pool: db.pool,
      intervalMs: 3_600_000,
      now: () => clock,
      onStreamsRemoved: async (streams) => {
        told.push(...streams);
      },
    });
    try {
      const [never, reclaimed, expiring] = [freshStream(), freshStream(), freshStream()];
      await store.appendToStream(never, someEvents(1), { expectedRevision: 'no_stream' });
      for (const stream of [reclaimed, expiring]) {
        await store.appendToStream(stream, someEvents(1), {
          expectedRevision: 'no_stream',
          retention: { maxAgeSeconds: 60 },
        });
      }
      await store.appendToStream(reclaimed, someEvents(1), {
        expectedRevision: 0n,
        retention: { truncateBefore: 1n },
      });
      advance(30 * 86_400);
      let rounds = 0;
      while (!told.includes(expiring) && rounds++ < 40) await scavenger.runRound();

      expect(told).toContain(expiring);
      expect(told).not.toContain(never);
      expect(told).not.toContain(reclaimed);
      expect(await store.readStream(never)).toHaveLength(1);
      expect(await store.readStream(reclaimed)).toHaveLength(1);
    } finally {
      await scavenger.stop();
    }
  });

  it('leads alone: a second scavenger on the same database waits its turn', async () => {
    const holder = await db.pool.connect();
    const scavenger = startStreamScavenger({ pool: db.pool, intervalMs: 3_600_000 });
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [0x0_5ca7_e46e]);
      expect((await scavenger.runRound()).led).toBe(false);
      await holder.query('SELECT pg_advisory_unlock($1)', [0x0_5ca7_e46e]);
      expect((await scavenger.runRound()).led).toBe(true);
    } finally {
      holder.release();
      await scavenger.stop();
    }
  });
});
