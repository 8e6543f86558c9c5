import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createPostgresEventStore, startStreamScavenger } from '@once/event-store/postgres';
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
  completeAbandonedKeysOnce,
  findUnresumableKeys,
  getIdempotencyKey,
  idempotencyKeysProjection,
  newCompleterWalk,
  removeKeyRowsOfStreams,
  startAbandonedKeyCompleter,
  sweepExpiredKeys,
} from './index.js';
import type { CompleterWalkReport } from './index.js';

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

describe('the abandoned-key completer, beside the projector', () => {
  it('finishes a key its client abandoned once the key table shows the lease expired, and follows a blue/green switch', async () => {
    const { clock, faults, engine, handlers } = crashableEngine();
    const projector = await startProjector({
      pool: db.pool,
      store,
      projections: [idempotencyKeysProjection],
      pollIntervalMs: 10,
      leaseRetryMs: 100,
    });
    const stopped = new AbortController();
    const completer = startAbandonedKeyCompleter(
      db.pool,
      { engine, handlers, intervalMs: 50, now: clock.now, signal: stopped.signal },
      silentLogger,
    );
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
      stopped.abort();
      await completer.stop();
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

  it('pages past keys it cannot resume: they are reported at the end of each walk and never hold back the rest', async () => {
    const { clock, faults, engine, handlers } = crashableEngine();
    const projector = await startProjector({
      pool: db.pool,
      store,
      projections: [idempotencyKeysProjection],
      pollIntervalMs: 10,
      leaseRetryMs: 100,
    });
    try {
      const scope = { tenantId: randomUUID(), actorId: randomUUID() };
      const counterId = randomUUID();
      // Three keys of a command this deployment no longer handles, abandoned first (their leases end first).
      const retired = Array.from({ length: 3 }, () => `retired-${randomUUID()}`);
      for (const key of retired) {
        faults.arm('after-plan');
        await expect(
          engine.execute({
            scope,
            key,
            ...incrementInput(counterId, 1),
            command: { type: 'RetiredCommand', version: 1, data: { counterId, by: 1 } },
            handler: incrementCounterHandler(),
          }),
        ).rejects.toBeInstanceOf(InjectedCrash);
      }
      clock.advance(1_000);
      const key = `abandoned-${randomUUID()}`;
      faults.arm('after-plan');
      await expect(
        engine.execute({ scope, key, ...incrementInput(counterId, 5), handler: incrementCounterHandler() }),
      ).rejects.toBeInstanceOf(InjectedCrash);
      faults.disarm();
      await waitFor(async () => {
        const rows = await Promise.all(
          [...retired, key].map((each) => getIdempotencyKey(db.pool, { ...scope, key: each })),
        );
        return rows.every((row) => row?.status === 'inFlight');
      }, 'the key table to show every abandoned key in flight');
      clock.advance(10_000);

      // When the completer takes two keys a round, the retired ones fill its first page
      const walks: CompleterWalkReport[] = [];
      const options = {
        engine,
        handlers,
        now: clock.now,
        batchSize: 2,
        onWalkEnd: (walk: CompleterWalkReport) => walks.push(walk),
      };
      const walk = newCompleterWalk();
      const rounds = [];
      for (let round = 0; round < 3; round++) {
        rounds.push(await completeAbandonedKeysOnce(db.pool, options, silentLogger, walk));
      }

      // Then the next round pages on after them and finishes the key it can resume, with one effect
      expect(rounds[0]).toEqual([
        expect.objectContaining({ skipped: 'no-handler', commandType: 'RetiredCommand' }),
        expect.objectContaining({ skipped: 'no-handler', commandType: 'RetiredCommand' }),
      ]);
      expect(rounds[1]?.filter((result) => 'outcome' in result)).toHaveLength(1);
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);

      // And the walk's end reports the three it cannot resume, as the operator's read lists them
      expect(walks).toHaveLength(1);
      expect(walks[0]?.unresumable.map((each) => each.key).sort()).toEqual([...retired].sort());
      const listed = await findUnresumableKeys(db.pool, {
        engine,
        handlers,
        now: new Date(clock.now()),
        tenantId: scope.tenantId,
      });
      expect(listed.map((each) => [each.key, each.commandType]).sort()).toEqual(
        retired.map((each) => [each, 'RetiredCommand']).sort(),
      );
      expect(
        await findUnresumableKeys(db.pool, {
          engine,
          handlers,
          now: new Date(clock.now()),
          tenantId: randomUUID(),
        }),
      ).toEqual([]);
    } finally {
      await projector.stop();
    }
  });

  it('a key abandoned for longer than its retention is neither scavenged nor swept; its retention starts at completion', async () => {
    const clock = createManualClock();
    const faults = createFaultInjector();
    const storeClock = () => new Date(clock.now());
    const clockedStore = createPostgresEventStore(db.pool, { now: storeClock });
    const engine = createIdempotencyEngine({
      store: clockedStore,
      clock: clock.now,
      leaseMs: 10_000,
      retentionSeconds: 60,
      faults: faults.hook,
      protocol: 'phased',
      completedKeys: { capacity: 0 },
    });
    const handlers = commandHandlers([bindCommand(incrementCounter, incrementCounterHandler())]);
    const removed: string[] = [];
    const scavenger = startStreamScavenger({
      pool: db.pool,
      intervalMs: 3_600_000,
      now: storeClock,
      onStreamsRemoved: async (streams) => {
        removed.push(...streams);
        await removeKeyRowsOfStreams(db.pool, streams);
      },
    });
    const projector = await startProjector({
      pool: db.pool,
      store,
      projections: [idempotencyKeysProjection],
      pollIntervalMs: 10,
      leaseRetryMs: 100,
    });
    try {
      const scope = { tenantId: randomUUID(), actorId: randomUUID() };
      const counterId = randomUUID();
      const key = `outlived-${randomUUID()}`;
      const input = { scope, key, ...incrementInput(counterId, 1), handler: incrementCounterHandler() };
      const keyStream = keyStreamName(scope, key);
      faults.arm('after-plan');
      await expect(engine.execute(input)).rejects.toBeInstanceOf(InjectedCrash);
      faults.disarm();
      await waitFor(
        async () => (await getIdempotencyKey(db.pool, { ...scope, key }))?.status === 'inFlight',
        'the key table to show the abandoned key in flight',
      );

      // When the completer is down for ten retentions while the scavenger and the key sweep run
      clock.advance(600_000);
      await scavenger.runRound();
      await sweepExpiredKeys(db.pool, store, { notUpdatedSince: new Date(Date.UTC(2100, 0, 1)) });

      // Then the key is still there, in the log and in the key table, and the completer finishes it once
      expect(removed).not.toContain(keyStream);
      expect(await getIdempotencyKey(db.pool, { ...scope, key })).toMatchObject({ status: 'inFlight' });
      const results = await completeAbandonedKeysOnce(
        db.pool,
        { engine, handlers, now: clock.now },
        silentLogger,
      );
      expect(results?.find((result) => result.keyStream === keyStream)).toMatchObject({
        outcome: { kind: 'first', resumed: true },
      });
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);

      // And a late retry within a retention of the completion replays it
      clock.advance(59_000);
      await scavenger.runRound();
      expect(await engine.execute(input)).toMatchObject({ kind: 'replay' });

      // Long after, the stream goes whole, and its row with it
      clock.advance(3_600_000);
      let rounds = 0;
      while (!removed.includes(keyStream) && rounds++ < 50) await scavenger.runRound();
      expect(removed).toContain(keyStream);
      await waitFor(
        async () => (await getIdempotencyKey(db.pool, { ...scope, key })) === undefined,
        'the key row to go with its stream',
      );
    } finally {
      await projector.stop();
      await scavenger.stop();
      await clockedStore.close();
    }
  });
});
