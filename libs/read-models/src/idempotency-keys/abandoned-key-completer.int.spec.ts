import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createPostgresEventStore } from '@once/event-store/postgres';
import type { EventStore } from '@once/event-store';
import { bindCommand, commandHandlers, createIdempotencyEngine } from '@once/idempotency';
import { keyStreamName } from '@once/idempotency/key-log';
import {
  countIncrementsByKey,
  createFaultInjector,
  createManualClock,
  incrementCounter,
  incrementCounterHandler,
  incrementInput,
  InjectedCrash,
} from '@once/idempotency/testing';
import {
  getLiveVersion,
  rebuildProjection,
  silentLogger,
  startProjector,
  waitForPosition,
} from '@once/projections';
import { createTestDatabase, waitFor } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import {
  abandonedKeyCompleter,
  completeAbandonedKeysOnce,
  getIdempotencyKey,
  idempotencyKeysProjection,
} from './index.js';

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

/** An engine on a manual clock (leases of 10 s) whose fault points the test arms, with the counter's handlers. */
const crashableEngine = () => {
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
  return { clock, faults, engine, handlers };
};

describe('the abandoned-key completer, as a task of the projector', () => {
  it('finishes a key its client abandoned once the key table shows the lease expired, and follows a blue/green switch', async () => {
    const { clock, faults, engine, handlers } = crashableEngine();
    const projector = await startProjector({
      pool: db.pool,
      store,
      projections: [idempotencyKeysProjection],
      pollIntervalMs: 10,
      leaseRetryMs: 100,
      tasks: [abandonedKeyCompleter(db.pool, { engine, handlers, intervalMs: 50, now: clock.now })],
    });
    try {
      const scope = { tenantId: randomUUID(), actorId: randomUUID() };
      const counterId = randomUUID();
      const key = `abandoned-${randomUUID()}`;
      faults.arm('after-plan');
      await expect(
        engine.execute({
          scope,
          key,
          ...incrementInput(counterId, 1),
          handler: incrementCounterHandler(),
        }),
      ).rejects.toBeInstanceOf(InjectedCrash);
      faults.disarm();
      const [last] = await store.readStream(keyStreamName(scope, key), {
        direction: 'backwards',
        maxCount: 1,
      });
      if (!last) throw new Error('the crashed request left no key events');
      expect(
        (await waitForPosition(db.pool, 'idempotency_keys', last.position, { timeoutMs: 10_000 })).reached,
      ).toBe(true);
      expect(await getIdempotencyKey(db.pool, { ...scope, key })).toMatchObject({ status: 'inFlight' });

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
      await projector.stop();
    }
    expect(projector.states()).toEqual({ idempotency_keys: 'stopped' });
  });

  it('completes one round at a time across processes: a second completer skips while the first holds the round', async () => {
    const { clock, faults, engine, handlers } = crashableEngine();
    const projector = await startProjector({
      pool: db.pool,
      store,
      projections: [idempotencyKeysProjection],
      pollIntervalMs: 10,
      leaseRetryMs: 100,
    });
    const otherProcess = new pg.Pool({ connectionString: db.connectionString, max: 2 });
    try {
      const scope = { tenantId: randomUUID(), actorId: randomUUID() };
      const counterId = randomUUID();
      const key = `abandoned-${randomUUID()}`;
      faults.arm('after-plan');
      await expect(
        engine.execute({ scope, key, ...incrementInput(counterId, 1), handler: incrementCounterHandler() }),
      ).rejects.toBeInstanceOf(InjectedCrash);
      faults.disarm();
      await waitFor(
        async () => (await getIdempotencyKey(db.pool, { ...scope, key }))?.status === 'inFlight',
        'the key table to show the abandoned key in flight',
      );
      clock.advance(10_000);

      // When one completer's round stalls just before it completes the key
      faults.arm('before-complete', 'hang');
      const options = { engine, handlers, now: clock.now };
      const first = completeAbandonedKeysOnce(db.pool, options, silentLogger);
      await waitFor(() => faults.fired.includes('before-complete'), 'the first round to reach the key');

      // Then a completer on another process's connections gets no round while the first holds it
      expect(await completeAbandonedKeysOnce(otherProcess, options, silentLogger)).toBeUndefined();

      // And the first finishes the key, with one effect
      faults.releaseHangs();
      expect((await first)?.filter((result) => 'outcome' in result)).toHaveLength(1);
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
    } finally {
      await otherProcess.end();
      await projector.stop();
    }
  });
});
