import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInMemoryEventStore } from '@once/event-store/in-memory';
import { createTestDatabase, freshTenantId } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { appendLedgerWorkload, ledgerProjection } from '../testing/index.js';
import { startProjectionRunner } from '../runner/index.js';
import { migrateProjectionsSchema } from '../schema/index.js';
import { ensureLiveVersion, listVersions } from '../versions/index.js';
import { rebuildProjection } from './index.js';
import type { RebuildProgress } from './index.js';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await migrateProjectionsSchema(db.pool);
});

afterAll(async () => {
  await db.release();
});

const rowsOf = async (table: string): Promise<unknown[]> =>
  (await db.pool.query(`SELECT * FROM ${table} ORDER BY tenant_id, account_id`)).rows;

describe('blue/green rebuild', () => {
  it('fills a new version while the live one serves, resumes after an interruption, then switches in one step', async () => {
    const projection = ledgerProjection();
    const store = createInMemoryEventStore();
    const tenantId = freshTenantId();
    const expected = await appendLedgerWorkload(store, { seed: 5, tenantId, operations: 500 });
    const live = await ensureLiveVersion(db.pool, projection);
    await startProjectionRunner({
      pool: db.pool,
      store,
      projection,
      version: live.version,
      stopWhenCaughtUp: true,
    }).done;
    const liveRows = await rowsOf(`ledger_accounts_v${live.version}`);
    expect(liveRows).toHaveLength(expected.size);

    const interrupt = new AbortController();
    const progress: RebuildProgress[] = [];
    const first = await rebuildProjection({
      pool: db.pool,
      store,
      projection,
      batchSize: 50,
      signal: interrupt.signal,
      onProgress: (sample) => {
        progress.push(sample);
        if (progress.length === 3) interrupt.abort();
      },
    });
    expect(first).toMatchObject({ status: 'interrupted' });
    expect(await rowsOf('ledger_accounts')).toEqual(liveRows);
    expect((await listVersions(db.pool, projection.name)).map((version) => version.state)).toEqual([
      'live',
      'building',
    ]);

    const second = await rebuildProjection({ pool: db.pool, store, projection, batchSize: 50 });
    expect(second).toMatchObject({ status: 'live', version: first.version, previous: live.version });
    const ledgerEvents = (await store.readAll({ filter: { streamPrefixes: ['ledger-'] }, maxCount: 100_000 }))
      .events.length;
    expect(first.events).toBeGreaterThan(0);
    expect(second.events).toBe(ledgerEvents - first.events);
    expect(await rowsOf(`ledger_accounts_v${first.version}`)).toEqual(liveRows);
    expect(await rowsOf('ledger_accounts')).toEqual(liveRows);
    expect((await listVersions(db.pool, projection.name)).map((version) => version.state)).toEqual([
      'retired',
      'live',
    ]);
    expect(progress.every((sample) => sample.eventsPerSecond > 0)).toBe(true);

    const third = await rebuildProjection({ pool: db.pool, store, projection, batchSize: 500 });
    expect(third).toMatchObject({ status: 'live', previous: first.version });
    const versions = await listVersions(db.pool, projection.name);
    expect(versions.map((version) => [version.version, version.state])).toEqual([
      [first.version, 'retired'],
      [third.version, 'live'],
    ]);
    const dropped = await db.pool.query(`SELECT to_regclass('ledger_accounts_v${live.version}') AS missing`);
    expect(dropped.rows[0]).toEqual({ missing: null });
    expect(await rowsOf('ledger_accounts')).toEqual(liveRows);
  });
});
