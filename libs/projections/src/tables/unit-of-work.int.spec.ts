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

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(tableDdl(countersTable, 1));
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
