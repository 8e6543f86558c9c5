import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInMemoryEventStore } from '@once/event-store/in-memory';
import type { EventStore } from '@once/event-store';
import { createTestDatabase, freshTenantId } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { appendLedgerWorkload, ledgerProjection } from '../testing/index.js';
import type { LedgerAccountRow } from '../testing/index.js';
import { migrateProjectionsSchema } from '../schema/index.js';
import { ensureLiveVersion } from '../versions/index.js';
import { CheckpointConflictError, startProjectionRunner } from './index.js';
import type { RunnerState } from './index.js';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase({ poolSize: 12 });
  await migrateProjectionsSchema(db.pool);
});

afterAll(async () => {
  await db.release();
});

const projectedLedger = async (tenantId: string, version: number): Promise<Map<string, LedgerAccountRow>> => {
  const result = await db.pool.query<LedgerAccountRow>(
    `SELECT tenant_id, account_id, balance::float8 AS balance, movements, last_position
       FROM ledger_accounts_v${version} WHERE tenant_id = $1`,
    [tenantId],
  );
  return new Map(result.rows.map((row) => [row.account_id, row]));
};

const waitFor = async (condition: () => boolean | Promise<boolean>, what: string): Promise<void> => {
  const deadline = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

describe('projection runner', () => {
  it('projects a seeded random workload into rows equal to a fresh fold of the log', async () => {
    for (const seed of [1, 2, 3]) {
      const projection = { ...ledgerProjection(), name: `ledger_seed_${seed}` };
      const live = await ensureLiveVersion(db.pool, projection);
      const store = createInMemoryEventStore();
      const tenantId = freshTenantId();
      const expected = await appendLedgerWorkload(store, { seed, tenantId, operations: 300 });
      await startProjectionRunner({
        pool: db.pool,
        store,
        projection,
        version: live.version,
        batchSize: 7 + seed * 13,
        stopWhenCaughtUp: true,
      }).done;
      expect(await projectedLedger(tenantId, live.version)).toEqual(expected);
    }
  });

  it('loses and duplicates nothing when it crashes between applying a batch and writing it', async () => {
    const projection = { ...ledgerProjection(), name: 'ledger_crash' };
    const live = await ensureLiveVersion(db.pool, projection);
    const store = createInMemoryEventStore();
    const tenantId = freshTenantId();
    const expected = await appendLedgerWorkload(store, { seed: 42, tenantId, operations: 400 });
    let batches = 0;
    const crashing = startProjectionRunner({
      pool: db.pool,
      store,
      projection,
      version: live.version,
      batchSize: 40,
      stopWhenCaughtUp: true,
      faults: {
        beforeWrite: () => {
          batches += 1;
          if (batches === 4) throw new Error('injected crash before the write');
        },
      },
    });
    await expect(crashing.done).rejects.toThrow('injected crash before the write');
    const partial = await db.pool.query<{ count: string }>(
      `SELECT count(*) FROM ledger_accounts_v${live.version} WHERE tenant_id = $1`,
      [tenantId],
    );
    expect(Number(partial.rows[0]?.count)).toBeGreaterThan(0);

    await startProjectionRunner({
      pool: db.pool,
      store,
      projection,
      version: live.version,
      batchSize: 40,
      stopWhenCaughtUp: true,
    }).done;
    const result = await db.pool.query<LedgerAccountRow>(
      `SELECT tenant_id, account_id, balance::float8 AS balance, movements, last_position
         FROM ledger_accounts_v${live.version} WHERE tenant_id = $1`,
      [tenantId],
    );
    expect(new Map(result.rows.map((row) => [row.account_id, row]))).toEqual(expected);
  });

  it('recovers by itself when its connection dies between applying a batch and writing it', async () => {
    const projection = { ...ledgerProjection(), name: 'ledger_connection_loss' };
    const live = await ensureLiveVersion(db.pool, projection);
    const store = createInMemoryEventStore();
    const tenantId = freshTenantId();
    const expected = await appendLedgerWorkload(store, { seed: 43, tenantId, operations: 300 });
    let batches = 0;
    const states: RunnerState[] = [];
    await startProjectionRunner({
      pool: db.pool,
      store,
      projection,
      version: live.version,
      batchSize: 30,
      leaseRetryMs: 50,
      stopWhenCaughtUp: true,
      onStateChange: (state) => states.push(state),
      faults: {
        beforeWrite: async ({ client }) => {
          batches += 1;
          if (batches !== 3) return;
          const pid = (client as unknown as { processID: number }).processID;
          await db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
        },
      },
    }).done;
    expect(states.filter((state) => state === 'leading')).toHaveLength(2);
    const result = await db.pool.query<LedgerAccountRow>(
      `SELECT tenant_id, account_id, balance::float8 AS balance, movements, last_position
         FROM ledger_accounts_v${live.version} WHERE tenant_id = $1`,
      [tenantId],
    );
    expect(new Map(result.rows.map((row) => [row.account_id, row]))).toEqual(expected);
  });

  it('stops when another writer moved the checkpoint under it (compare-and-set)', async () => {
    const projection = { ...ledgerProjection(), name: 'ledger_cas' };
    const live = await ensureLiveVersion(db.pool, projection);
    const inner = createInMemoryEventStore();
    await appendLedgerWorkload(inner, { seed: 8, tenantId: freshTenantId(), operations: 100 });
    let reads = 0;
    const store: EventStore = {
      ...inner,
      readAll: async (options) => {
        reads += 1;
        if (reads === 2) {
          await db.pool.query(
            `UPDATE projection_checkpoints SET position = '99999999999999999999:00000000000000000000'
              WHERE name = $1 AND version = $2`,
            [projection.name, live.version],
          );
        }
        return inner.readAll(options);
      },
    };
    const runner = startProjectionRunner({
      pool: db.pool,
      store,
      projection,
      version: live.version,
      batchSize: 10,
      stopWhenCaughtUp: true,
    });
    await expect(runner.done).rejects.toBeInstanceOf(CheckpointConflictError);
  });

  it('keeps a standby that takes over when the leader’s connection dies', async () => {
    const projection = { ...ledgerProjection(), name: 'ledger_failover' };
    const live = await ensureLiveVersion(db.pool, projection);
    const store = createInMemoryEventStore();
    const tenantId = freshTenantId();
    await appendLedgerWorkload(store, { seed: 11, tenantId, operations: 100 });
    const states: Record<string, RunnerState> = {};
    const start = (id: string, leaseRetryMs: number) =>
      startProjectionRunner({
        pool: db.pool,
        store,
        projection,
        version: live.version,
        batchSize: 20,
        pollIntervalMs: 20,
        leaseRetryMs,
        onStateChange: (state) => {
          states[id] = state;
        },
      });
    // The old leader retries slowly, so the standby is the one that takes over.
    const first = start('first', 3000);
    await waitFor(() => states.first === 'leading', 'the first runner to lead');
    const second = start('second', 100);
    await waitFor(() => states.second === 'standby', 'the second runner to stand by');

    const holder = await db.pool.query<{ pid: number }>(
      `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = (hashtextextended($1, 0) & 4294967295)::oid`,
      [`projection:${projection.name}:v${live.version}`],
    );
    expect(holder.rows).toHaveLength(1);
    await db.pool.query('SELECT pg_terminate_backend($1)', [holder.rows[0]?.pid]);

    await waitFor(() => states.second === 'leading', 'the standby to take over');
    const laterTenantId = freshTenantId();
    const more = await appendLedgerWorkload(store, { seed: 12, tenantId: laterTenantId, operations: 60 });
    await waitFor(async () => {
      const rows = await projectedLedger(laterTenantId, live.version);
      return JSON.stringify([...rows.entries()].sort()) === JSON.stringify([...more.entries()].sort());
    }, 'the new leader to apply what was appended after the failover');
    expect(states.first).not.toBe('leading');
    await Promise.all([first.stop(), second.stop()]);
  });
});
