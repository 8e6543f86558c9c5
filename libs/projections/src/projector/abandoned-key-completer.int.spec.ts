import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createPostgresEventStore } from '@once/event-store';
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
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { waitForPosition } from '../consistency/index.js';
import { getIdempotencyKey, idempotencyKeysProjection } from '../read-models/idempotency-keys/index.js';
import { silentLogger } from '../runner/projection-definition.js';
import { completeAbandonedKeysOnce, startProjector } from './index.js';
import type { Projector } from './index.js';

let db: TestDatabase;
let store: EventStore;
let projector: Projector;
/** A second process's connections to the same database. */
let otherProcess: pg.Pool;

beforeAll(async () => {
  db = await createTestDatabase({ poolSize: 8 });
  otherProcess = new pg.Pool({ connectionString: db.connectionString, max: 4 });
  store = createPostgresEventStore(db.pool);
  projector = await startProjector({
    pool: db.pool,
    store,
    projections: [idempotencyKeysProjection],
    pollIntervalMs: 10,
    leaseRetryMs: 100,
  });
});

afterAll(async () => {
  await projector?.stop();
  await store?.close();
  await otherProcess?.end();
  await db?.release();
});

const waitFor = async (condition: () => boolean | Promise<boolean>, what: string): Promise<void> => {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('the completer', () => {
  it('runs one round at a time across processes: a second completer skips while the first holds the round', async () => {
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

    // Given a key whose client crashed after its plan, and whose lease the key table shows expired
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
    clock.advance(10_000);

    // When one completer's round stalls just before it completes the key
    faults.arm('before-complete', 'hang');
    const first = completeAbandonedKeysOnce(db.pool, { engine, handlers, now: clock.now }, silentLogger);
    await waitFor(() => faults.fired.includes('before-complete'), 'the first round to reach the key');

    // Then a completer of another process gets no round while the first holds it
    const second = await completeAbandonedKeysOnce(
      otherProcess,
      { engine, handlers, now: clock.now },
      silentLogger,
    );
    expect(second).toBeUndefined();

    // And the first finishes the key, with one effect
    faults.releaseHangs();
    const results = await first;
    expect(results?.filter((result) => 'outcome' in result)).toHaveLength(1);
    expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
    await waitFor(
      async () => (await getIdempotencyKey(db.pool, { ...scope, key }))?.status === 'completed',
      'the key table to show the key completed',
    );
  });
});
