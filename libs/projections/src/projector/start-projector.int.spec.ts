import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createInMemoryEventStore, createPostgresEventStore } from '@once/event-store';
import type { EventStore } from '@once/event-store';
import { bindCommand, commandHandlers, createIdempotencyEngine, keyStreamName } from '@once/idempotency';
import {
  countIncrementsByKey,
  createFaultInjector,
  createManualClock,
  incrementCounter,
  incrementCounterHandler,
  incrementInput,
  InjectedCrash,
} from '@once/idempotency/testing';
import { createTestDatabase, freshTenantId } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { waitForPosition } from '../consistency/index.js';
import { getIdempotencyKey, idempotencyKeysProjection } from '../read-models/idempotency-keys/index.js';
import { rebuildProjection } from '../rebuild/index.js';
import { getLiveVersion, listVersions } from '../versions/index.js';
import { appendLedgerWorkload, ledgerProjection } from '../testing/index.js';
import { silentLogger } from '../runner/projection-definition.js';
import { completeAbandonedKeysOnce, startCompleter, startProjector } from './index.js';
import type { Completer } from './index.js';

let db: TestDatabase;
let store: EventStore;

beforeAll(async () => {
  db = await createTestDatabase({ poolSize: 16 });
  store = createPostgresEventStore(db.pool);
});

afterAll(async () => {
  await store.close();
  await db.release();
});

const waitFor = async (condition: () => Promise<boolean>, what: string): Promise<void> => {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

const startKeyTableProjector = () =>
  startProjector({
    pool: db.pool,
    store,
    projections: [idempotencyKeysProjection],
    pollIntervalMs: 10,
    leaseRetryMs: 100,
  });

/** A key whose client crashed after its plan, shown in flight by the key table; its lease ends at `clock.advance`. */
const abandonKey = async () => {
  const clock = createManualClock();
  const faults = createFaultInjector();
  const engine = createIdempotencyEngine({
    store,
    clock: clock.now,
    leaseMs: 10_000,
    faults: faults.hook,
    protocol: 'phased',
  });
  const handlers = commandHandlers([bindCommand(incrementCounter, incrementCounterHandler())]);
  const scope = { tenantId: randomUUID(), actorId: randomUUID() };
  const counterId = randomUUID();
  const key = `abandoned-${randomUUID()}`;
  faults.arm('after-plan');
  await expect(
    engine.execute({ scope, key, ...incrementInput(counterId, 1), handler: incrementCounterHandler() }),
  ).rejects.toBeInstanceOf(InjectedCrash);
  faults.disarm();
  const [last] = await store.readStream(keyStreamName(scope, key), { direction: 'backwards', maxCount: 1 });
  if (!last) throw new Error('the crashed request left no key events');
  expect(
    (await waitForPosition(db.pool, 'idempotency_keys', last.position, { timeoutMs: 10_000 })).reached,
  ).toBe(true);
  expect(await getIdempotencyKey(db.pool, { ...scope, key })).toMatchObject({ status: 'inFlight' });
  return { clock, faults, engine, handlers, scope, counterId, key };
};

describe('projector', () => {
  it('shows a key the completer finished once its lease expired, and follows a blue/green switch', async () => {
    const projector = await startKeyTableProjector();
    let completer: Completer | undefined;
    try {
      const { clock, engine, handlers, scope, counterId, key } = await abandonKey();
      completer = startCompleter(db.pool, { engine, handlers, intervalMs: 50, now: clock.now });
      clock.advance(10_000);
      await waitFor(
        async () => (await getIdempotencyKey(db.pool, { ...scope, key }))?.status === 'completed',
        'the completer to finish the key and the projector to show it',
      );
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
      expect(await getIdempotencyKey(db.pool, { ...scope, key })).toMatchObject({ response_status: 201 });

      const before = await getLiveVersion(db.pool, 'idempotency_keys');
      const rebuilt = await rebuildProjection({
        pool: db.pool,
        store,
        projection: idempotencyKeysProjection,
      });
      expect(rebuilt).toMatchObject({ status: 'live', previous: before?.version });
      const laterKey = `later-${randomUUID()}`;
      await engine.execute({
        scope,
        key: laterKey,
        ...incrementInput(counterId, 2),
        handler: incrementCounterHandler(),
      });
      await waitFor(
        async () => (await getIdempotencyKey(db.pool, { ...scope, key: laterKey }))?.status === 'completed',
        'the projector to follow the new live version',
      );
      expect(projector.states()).toEqual({ idempotency_keys: 'leading' });
    } finally {
      await completer?.stop();
      await projector.stop();
    }
    expect(projector.states()).toEqual({ idempotency_keys: 'stopped' });
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
    const until = async (condition: () => Promise<boolean>, what: string) => waitFor(condition, what);

    const first = await startProjector({
      pool: db.pool,
      store: memory,
      projections: [ledgerProjection(1)],
      pollIntervalMs: 10,
      leaseRetryMs: 50,
    });
    await until(
      async () =>
        (await db.pool.query(`SELECT to_regclass('ledger_accounts') IS NOT NULL AS ok`)).rows[0]?.ok === true,
      'the view',
    );
    const end = (await memory.readAll({ maxCount: 1_000_000 })).checkpoint;
    if (!end) throw new Error('the workload wrote nothing');
    await until(
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
      await until(
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

  it('completes one round at a time across processes: a second completer skips while the first holds the round', async () => {
    const projector = await startKeyTableProjector();
    const otherProcess = new pg.Pool({ connectionString: db.connectionString, max: 2 });
    try {
      const { clock, faults, engine, handlers, scope, counterId, key } = await abandonKey();
      clock.advance(10_000);

      // When one completer's round stalls just before it completes the key
      faults.arm('before-complete', 'hang');
      const first = completeAbandonedKeysOnce(db.pool, { engine, handlers, now: clock.now }, silentLogger);
      await waitFor(async () => faults.fired.includes('before-complete'), 'the first round to reach the key');

      // Then a completer on another process's connections gets no round while the first holds it
      const options = { engine, handlers, now: clock.now };
      expect(await completeAbandonedKeysOnce(otherProcess, options, silentLogger)).toBeUndefined();

      // And the first finishes the key, with one effect
      faults.releaseHangs();
      expect((await first)?.filter((result) => 'outcome' in result)).toHaveLength(1);
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
      await waitFor(
        async () => (await getIdempotencyKey(db.pool, { ...scope, key }))?.status === 'completed',
        'the key table to show the key completed',
      );
    } finally {
      await otherProcess.end();
      await projector.stop();
    }
  });
});
