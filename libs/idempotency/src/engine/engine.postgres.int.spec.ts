import { randomUUID } from 'node:crypto';
import { createPostgresEventStore, removeExpiredStreams } from '@once/event-store/postgres';
import type { EventStore } from '@once/event-store';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyStreamName } from '../key-log/index.js';
import {
  chargedIncrementHandler,
  counterStream,
  countIncrementsByKey,
  createFakeGateway,
  createManualClock,
  incrementCounterHandler,
  incrementInput,
} from '../testing/index.js';
import { describeEngineSuite } from '../testing/engine-suite.js';
import { createIdempotencyEngine } from './idempotency-engine.js';

const onPostgres = async () => {
  const db = await createTestDatabase();
  const store = createPostgresEventStore(db.pool);
  return {
    store,
    release: async () => {
      await store.close();
      await db.release();
    },
  };
};

describeEngineSuite('engine on PostgreSQL (atomic: key and events in one commit)', {
  createStore: onPostgres,
  protocol: 'auto',
  expectedProtocol: 'atomic',
});

describeEngineSuite('engine on PostgreSQL, forced phased (the protocol EventStoreDB needs)', {
  createStore: onPostgres,
  protocol: 'phased',
  expectedProtocol: 'phased',
});

describe.each(['auto', 'phased'] as const)(
  'a key reused after its retention on PostgreSQL (%s)',
  (protocol) => {
    const RETENTION_SECONDS = 60;
    const clock = createManualClock(Date.now());
    let db: TestDatabase;
    let store: EventStore;

    beforeAll(async () => {
      db = await createTestDatabase();
      store = createPostgresEventStore(db.pool, { now: () => new Date(clock.now()) });
    });
    afterAll(async () => {
      await store.close();
      await db.release();
    });

    const engineWith = () =>
      createIdempotencyEngine({
        store,
        clock: clock.now,
        protocol,
        retentionSeconds: RETENTION_SECONDS,
        retryBaseMs: 1,
      });

    /** Past the retention, and the stream scavenger's round: the key's stream is gone whole. */
    const expireAndScavenge = async (keyStream: string) => {
      clock.advance((RETENTION_SECONDS + 1) * 1000);
      const round = await removeExpiredStreams(db.pool, { limit: 10_000, now: new Date(clock.now()) });
      expect(round.removedStreams).toContain(keyStream);
    };

    const fresh = () => {
      const scope = { tenantId: randomUUID(), actorId: randomUUID() };
      const counterId = randomUUID();
      const key = randomUUID();
      return { scope, counterId, key, keyStream: keyStreamName(scope, key) };
    };

    it('answers expired, every time, where it once answered contention for ever; nothing is appended twice', async () => {
      const { scope, counterId, key, keyStream } = fresh();
      const input = { scope, key, ...incrementInput(counterId, 1), handler: incrementCounterHandler() };
      expect(await engineWith().execute(input)).toMatchObject({ kind: 'first' });

      // Expired but not yet removed: the key stream's revision stays, its events read as absent.
      clock.advance((RETENTION_SECONDS + 1) * 1000);
      const engine = engineWith();
      expect(await engine.execute(input)).toEqual({ kind: 'expired', stream: counterStream(counterId) });

      await expireAndScavenge(keyStream);
      for (const attempt of [1, 2, 3]) {
        expect(await engine.execute(input), `attempt ${attempt}`).toEqual({
          kind: 'expired',
          stream: counterStream(counterId),
        });
      }
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
      expect(await engine.readKeyState(keyStream)).toEqual({ status: 'absent' });
    });

    it('a card-payment-shaped key reused after its retention is expired at every retry, and charged once', async () => {
      const { scope, counterId, key, keyStream } = fresh();
      const gateway = createFakeGateway();
      const input = {
        scope,
        key,
        ...incrementInput(counterId, 4),
        handler: chargedIncrementHandler(gateway),
      };
      expect(await engineWith().execute(input)).toMatchObject({ kind: 'first', protocol: 'phased' });
      for (const attempt of [1, 2]) {
        await expireAndScavenge(keyStream);
        expect(await engineWith().execute(input), `attempt ${attempt}`).toEqual({
          kind: 'expired',
          stream: counterStream(counterId),
        });
      }
      expect([...gateway.charges.values()]).toEqual([1]);
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
    });
  },
);
