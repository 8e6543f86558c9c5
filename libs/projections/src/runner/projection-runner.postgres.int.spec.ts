import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresEventStore, migrateEventStore } from '@once/event-store/postgres';
import type { EventStore } from '@once/event-store';
import { createTestDatabase, freshTenantId } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { appendLedgerWorkload, foldLedger, ledgerProjection, ledgerStream } from '../testing/index.js';
import type { LedgerAccountRow } from '../testing/index.js';
import { migrateProjectionsSchema } from '../schema/index.js';
import { ensureLiveVersion } from '../versions/index.js';
import { startProjectionRunner } from './index.js';

let db: TestDatabase;
let store: EventStore;

beforeAll(async () => {
  db = await createTestDatabase({ poolSize: 16 });
  // The test calls event_store_append directly, so the schema must be there before it, not only before the store's
  // first operation (the store migrates in the background).
  await migrateEventStore(db.pool);
  store = createPostgresEventStore(db.pool, { migrate: false });
  await migrateProjectionsSchema(db.pool);
});

afterAll(async () => {
  await store.close();
  await db.release();
});

const projectedLedger = async (tenantId: string): Promise<Map<string, LedgerAccountRow>> => {
  const result = await db.pool.query<LedgerAccountRow>(
    `SELECT tenant_id, account_id, balance::float8 AS balance, movements, last_position
       FROM ledger_accounts WHERE tenant_id = $1`,
    [tenantId],
  );
  return new Map(result.rows.map((row) => [row.account_id, row]));
};

const sorted = (rows: Map<string, LedgerAccountRow>): string =>
  JSON.stringify([...rows.values()].sort((a, b) => a.account_id.localeCompare(b.account_id)));

const waitFor = async (condition: () => Promise<boolean>, what: string): Promise<void> => {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

describe('projection runner over the PostgreSQL event store', () => {
  it('applies every event once while concurrent writers commit out of order, one transaction held open late', async () => {
    const projection = ledgerProjection();
    const live = await ensureLiveVersion(db.pool, projection);
    const runner = startProjectionRunner({
      pool: db.pool,
      store,
      projection,
      version: live.version,
      batchSize: 25,
      pollIntervalMs: 10,
    });

    const lateTenant = freshTenantId();
    const late = await db.pool.connect();
    try {
      await late.query('BEGIN');
      const opened = JSON.stringify([
        {
          id: crypto.randomUUID(),
          type: 'LedgerOpened',
          data: { tenantId: lateTenant, accountId: 'late' },
          metadata: {},
        },
        {
          id: crypto.randomUUID(),
          type: 'LedgerMoved',
          data: { tenantId: lateTenant, accountId: 'late', amount: 17 },
          metadata: {},
        },
      ]);
      // An append inside a transaction that stays open: its transaction id is older than everything written below.
      await late.query('SELECT * FROM event_store_append($1, -1, $2::jsonb, NULL)', [
        ledgerStream(lateTenant, 'late'),
        opened,
      ]);

      const tenants = [freshTenantId(), freshTenantId(), freshTenantId()];
      await Promise.all(
        tenants.map((tenantId, index) =>
          appendLedgerWorkload(store, { seed: 100 + index, tenantId, operations: 120 }),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      await late.query('COMMIT');

      for (const tenantId of [...tenants, lateTenant]) {
        const expected = sorted(await foldLedger(store, tenantId));
        await waitFor(
          async () => sorted(await projectedLedger(tenantId)) === expected,
          `tenant ${tenantId} to match the fold`,
        );
      }
      expect((await projectedLedger(lateTenant)).get('late')).toMatchObject({ balance: 17, movements: 1 });
    } finally {
      late.release();
      await runner.stop();
    }
  });
});
