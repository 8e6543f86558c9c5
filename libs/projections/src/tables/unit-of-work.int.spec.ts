import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { defineTable, tableDdl } from './table-definition.js';
import { BatchUnitOfWork, RowCache } from './unit-of-work.js';

type CounterRow = { counter_id: string; value: number };

const countersTable = defineTable<CounterRow>({
  name: 'uow_counters',
  columns: { counter_id: { type: 'text' }, value: { type: 'bigint' } },
  primaryKey: ['counter_id'],
});

type SeatRow = { seat_id: string; holder: string };

/** Seats with a unique holder: a holder moves by deleting one seat and taking another. */
const seatsTable = defineTable<SeatRow>({
  name: 'uow_seats',
  columns: { seat_id: { type: 'text' }, holder: { type: 'text' } },
  primaryKey: ['seat_id'],
  unique: [['holder']],
});

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(tableDdl(countersTable, 1));
  await db.pool.query(tableDdl(seatsTable, 1));
});

afterAll(async () => {
  await db.release();
});

const rows = async () =>
  (
    await db.pool.query<CounterRow>(
      'SELECT counter_id, value::int AS value FROM uow_counters_v1 ORDER BY counter_id',
    )
  ).rows;

/** Runs `work` in a transaction over a unit of work of version 1, flushing and committing at the end. */
const inBatch = async (work: (unit: BatchUnitOfWork) => Promise<void>, cache?: RowCache): Promise<void> => {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    const unit = new BatchUnitOfWork(client, 1, cache);
    await work(unit);
    await unit.flush();
    await client.query('COMMIT');
    unit.publish();
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
};

describe('batch unit of work', () => {
  it('creates rows read as absent, updates rows read as present, and replaces rows it never read', async () => {
    await inBatch(async (unit) => {
      expect(await unit.get(countersTable, { counter_id: 'a' })).toBeUndefined();
      unit.put(countersTable, { counter_id: 'a', value: 1 });
    });
    await db.pool.query("INSERT INTO uow_counters_v1 VALUES ('b', 5)");
    await inBatch(async (unit) => {
      const a = await unit.get(countersTable, { counter_id: 'a' });
      unit.put(countersTable, { counter_id: 'a', value: (a?.value ?? 0) + 1 });
      unit.put(countersTable, { counter_id: 'b', value: 6 });
      unit.delete(countersTable, { counter_id: 'c' });
      unit.put(countersTable, { counter_id: 'c', value: 1 });
    });
    expect(await rows()).toEqual([
      { counter_id: 'a', value: 2 },
      { counter_id: 'b', value: 6 },
      { counter_id: 'c', value: 1 },
    ]);
  });

  it('deletes before it writes: a row may take the unique key of a row deleted in the same batch', async () => {
    await inBatch(async (unit) => {
      unit.put(seatsTable, { seat_id: 's1', holder: 'ada' });
      unit.put(seatsTable, { seat_id: 's2', holder: 'bob' });
    });
    // Many rows written around the move, so the deletes and the writes are long enough to interleave if they could.
    await inBatch(async (unit) => {
      for (let seat = 100; seat < 2_100; seat += 1)
        unit.put(seatsTable, { seat_id: `s${seat}`, holder: `h${seat}` });
      expect(await unit.get(seatsTable, { seat_id: 's1' })).toEqual({ seat_id: 's1', holder: 'ada' });
      unit.delete(seatsTable, { seat_id: 's1' });
      unit.put(seatsTable, { seat_id: 's3', holder: 'ada' });
      expect(await unit.get(seatsTable, { seat_id: 's2' })).toEqual({ seat_id: 's2', holder: 'bob' });
      unit.delete(seatsTable, { seat_id: 's2' });
      unit.put(seatsTable, { seat_id: 's0', holder: 'bob' });
    });
    const { rows: seats } = await db.pool.query<SeatRow>(
      "SELECT seat_id, holder FROM uow_seats_v1 WHERE holder IN ('ada', 'bob') ORDER BY seat_id",
    );
    expect(seats).toEqual([
      { seat_id: 's0', holder: 'bob' },
      { seat_id: 's3', holder: 'ada' },
    ]);
  });

  it('fails the batch, never overwrites, when a row it took for absent exists after all', async () => {
    // A session cache that wrongly believes the table empty, as it would if another writer broke the single-writer
    // lease: the row it takes for new is created with a plain INSERT, which the primary key refuses.
    await db.pool.query("INSERT INTO uow_counters_v1 VALUES ('d', 40)");
    const cache = new RowCache(100);
    cache.markEmpty('uow_counters_v1');
    await expect(
      inBatch(async (unit) => {
        expect(await unit.get(countersTable, { counter_id: 'd' })).toBeUndefined();
        unit.put(countersTable, { counter_id: 'd', value: 1 });
      }, cache),
    ).rejects.toMatchObject({ code: '23505' });
    expect((await rows()).find((row) => row.counter_id === 'd')).toEqual({ counter_id: 'd', value: 40 });
  });
});
