import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventStoreDbEventStore } from '@once/event-store/eventstoredb';
import type { EventStore } from '@once/event-store';
import { startEventStoreDb } from '@once/event-store/testing';
import type { EventStoreTarget } from '@once/event-store/testing';
import { createTestDatabase, freshTenantId } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { appendLedgerWorkload, foldLedger, ledgerProjection } from '../testing/index.js';
import type { LedgerAccountRow } from '../testing/index.js';
import { migrateProjectionsSchema } from '../schema/index.js';
import { ensureLiveVersion } from '../versions/index.js';
import { startProjectionRunner } from './index.js';

// EVENTSTORE_URL, else an EventStoreDB container, else the wire-level test server: the real client over a socket.
let db: TestDatabase;
let target: EventStoreTarget;
let store: EventStore;

beforeAll(async () => {
  db = await createTestDatabase({ poolSize: 8 });
  target = await startEventStoreDb();
  store = createEventStoreDbEventStore(target.connectionString);
  await migrateProjectionsSchema(db.pool);
});

afterAll(async () => {
  await store.close();
  await target.stop();
  await db.release();
});

const sorted = (rows: Iterable<LedgerAccountRow>): string =>
  JSON.stringify([...rows].sort((a, b) => a.account_id.localeCompare(b.account_id)));

const projectedLedger = async (tenantId: string, version: number): Promise<string> => {
  const result = await db.pool.query<LedgerAccountRow>(
    `SELECT tenant_id, account_id, balance::float8 AS balance, movements, last_position
       FROM ledger_accounts_v${version} WHERE tenant_id = $1`,
    [tenantId],
  );
  return sorted(result.rows);
};

const sortedFold = async (tenantId: string): Promise<string> =>
  sorted((await foldLedger(store, tenantId)).values());

describe('projection runner over EventStoreDB', () => {
  it('catches up on a workload, then follows concurrent writers, each event applied once', async () => {
    const projection = { ...ledgerProjection(), name: 'ledger_eventstoredb' };
    const live = await ensureLiveVersion(db.pool, projection);
    const seeded = freshTenantId();
    await appendLedgerWorkload(store, { seed: 7, tenantId: seeded, operations: 150 });
    const runner = startProjectionRunner({
      pool: db.pool,
      store,
      projection,
      version: live.version,
      batchSize: 19,
      pollIntervalMs: 10,
    });
    try {
      const tenants = [freshTenantId(), freshTenantId()];
      await Promise.all(
        tenants.map((tenantId, index) =>
          appendLedgerWorkload(store, { seed: 70 + index, tenantId, operations: 80 }),
        ),
      );
      for (const tenantId of [seeded, ...tenants]) {
        const expected = await sortedFold(tenantId);
        await expect
          .poll(() => projectedLedger(tenantId, live.version), { timeout: 30_000, interval: 25 })
          .toBe(expected);
      }
      expect(await projectedLedger(seeded, live.version)).not.toBe('[]');
    } finally {
      await runner.stop();
    }
  });
});
