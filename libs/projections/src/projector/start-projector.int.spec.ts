import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInMemoryEventStore } from '@once/event-store/in-memory';
import { createTestDatabase, freshTenantId, waitFor } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { waitForPosition } from '../consistency/index.js';
import { listVersions } from '../versions/index.js';
import { silentLogger } from '../runner/index.js';
import type { ProjectionLogger } from '../runner/index.js';
import { appendLedgerWorkload, ledgerProjection } from '../testing/index.js';
import { startProjector } from './index.js';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase({ poolSize: 16 });
});

afterAll(async () => {
  await db.release();
});

describe('projector', () => {
  it('repeats its tasks beside the projections, goes on after a failed round, and stops them with itself', async () => {
    const logged: string[] = [];
    const logger: ProjectionLogger = {
      ...silentLogger,
      error: (data, message) =>
        logged.push(`${String((data as { task?: string }).task)}: ${String(message)}`),
    };
    let rounds = 0;
    const projector = await startProjector({
      pool: db.pool,
      store: createInMemoryEventStore(),
      logger,
      projections: [],
      tasks: [
        {
          name: 'flaky',
          intervalMs: 5,
          run: async () => {
            rounds += 1;
            if (rounds === 1) throw new Error('first round fails');
          },
        },
      ],
    });
    await waitFor(async () => rounds >= 3, 'three rounds of the task');
    await projector.stop();
    const roundsAtStop = rounds;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(rounds).toBe(roundsAtStop);
    expect(logged).toEqual(['flaky: projector task failed']);
  });

  it('rebuilds blue/green on its own when the code brings a new definition revision', async () => {
    const memory = createInMemoryEventStore();
    const tenantId = freshTenantId();
    await appendLedgerWorkload(memory, { seed: 3, tenantId, operations: 200 });
    const rows = async () =>
      (
        await db.pool.query('SELECT * FROM ledger_accounts WHERE tenant_id = $1 ORDER BY account_id', [
          tenantId,
        ])
      ).rows;

    const first = await startProjector({
      pool: db.pool,
      store: memory,
      projections: [ledgerProjection(1)],
      pollIntervalMs: 10,
      leaseRetryMs: 50,
    });
    await waitFor(
      async () =>
        (await db.pool.query(`SELECT to_regclass('ledger_accounts') IS NOT NULL AS ok`)).rows[0]?.ok === true,
      'the view',
    );
    const end = (await memory.readAll({ maxCount: 1_000_000 })).checkpoint;
    if (!end) throw new Error('the workload wrote nothing');
    await waitFor(
      async () => (await waitForPosition(db.pool, 'ledger', end, { timeoutMs: 100 })).reached,
      'version 1 to catch up',
    );
    expect((await rows()).length).toBeGreaterThan(0);
    await first.stop();
    const served = await rows();

    const second = await startProjector({
      pool: db.pool,
      store: memory,
      projections: [ledgerProjection(2)],
      pollIntervalMs: 10,
      leaseRetryMs: 50,
    });
    try {
      await waitFor(
        async () =>
          (await listVersions(db.pool, 'ledger')).some(
            (version) => version.state === 'live' && version.definitionVersion === 2,
          ),
        'the projector to rebuild and switch to the new definition',
      );
      expect(
        (await listVersions(db.pool, 'ledger')).map((version) => [version.definitionVersion, version.state]),
      ).toEqual([
        [1, 'retired'],
        [2, 'live'],
      ]);
      expect(await rows()).toEqual(served);
    } finally {
      await second.stop();
    }
  });
});
