import { randomUUID } from 'node:crypto';
import { EventStoreDBClient, StreamNotFoundError } from '@eventstore/db-client';
import { createEventStoreDbEventStore } from '@once/event-store/eventstoredb';
import { startWireEventStoreDb } from '@once/event-store/testing';
import type { WireEventStoreDb } from '@once/event-store/testing';
import type { EventStore } from '@once/event-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindCommand, commandHandlers } from '../commands/index.js';
import { keyStreamName } from '../key-log/index.js';
import {
  countIncrementsByKey,
  incrementCounter,
  incrementCounterHandler,
  incrementInput,
} from '../testing/counter-aggregate.js';
import { createFaultInjector, createManualClock, InjectedCrash } from '../testing/fault-injector.js';
import { completeAbandonedKeys, createIdempotencyEngine } from './index.js';
import type { IdempotencyEngine, IdempotencyEngineOptions } from './index.js';

// A key's retention on EventStoreDB, through the real client and the wire-level test server, whose clock is the
// engine's: $maxAge counts from each event's own write there, so a key in flight must carry none, and the completion
// of a key in flight longer than its retention must not let its log fold to anything but that completion.

const LEASE_MS = 10_000;
const RETENTION_SECONDS = 60;
const TWO_DAYS_MS = 2 * 24 * 3600_000;

const clock = createManualClock(Date.now());
let server: WireEventStoreDb;
let client: EventStoreDBClient;
/** Every write the store sends, in order: `$$…` is a stream's metadata. */
const writes: string[] = [];
let store: EventStore;

beforeAll(async () => {
  server = await startWireEventStoreDb({ now: () => new Date(clock.now()) });
  client = EventStoreDBClient.connectionString(server.connectionString);
  const recording = new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'appendToStream') return Reflect.get(target, property, receiver) as unknown;
      return async (...args: Parameters<EventStoreDBClient['appendToStream']>) => {
        writes.push(args[0]);
        return target.appendToStream(...args);
      };
    },
  });
  store = createEventStoreDbEventStore(recording);
});

afterAll(async () => {
  await client.dispose();
  await server.stop();
});

const engineWith = (options: Partial<IdempotencyEngineOptions> = {}): IdempotencyEngine =>
  createIdempotencyEngine({
    store,
    clock: clock.now,
    leaseMs: LEASE_MS,
    protocol: 'phased',
    retentionSeconds: RETENTION_SECONDS,
    retryBaseMs: 1,
    ...options,
  });

const handlers = commandHandlers([bindCommand(incrementCounter, incrementCounterHandler())]);

const fresh = () => {
  const scope = { tenantId: randomUUID(), actorId: randomUUID() };
  const counterId = randomUUID();
  const key = randomUUID();
  return {
    key,
    counterId,
    keyStream: keyStreamName(scope, key),
    input: (on = counterId) => ({ scope, key, ...incrementInput(on, 1), handler: incrementCounterHandler() }),
  };
};

const metadataOf = async (stream: string) => (await client.getStreamMetadata(stream)).metadata ?? {};

const typesIn = async (stream: string): Promise<string[]> => {
  try {
    return (await client.readStream(stream).toArray()).map((resolved) => resolved.event?.type ?? '');
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    throw error;
  }
};

/** Leaves a key in flight: its claim and its plan written, the process dead before the effect. */
const abandon = async (input: ReturnType<ReturnType<typeof fresh>['input']>) => {
  const faults = createFaultInjector();
  faults.arm('after-plan');
  await expect(engineWith({ faults: faults.hook }).execute(input)).rejects.toBeInstanceOf(InjectedCrash);
};

describe('a key in flight on EventStoreDB', () => {
  it('has no $maxAge however long it waits; its completion writes $maxAge first, and the log folds to it until it is gone', async () => {
    const engine = engineWith({ completedKeys: { capacity: 0 } });
    const { input, keyStream, counterId, key } = fresh();
    await abandon(input());
    expect(await metadataOf(keyStream)).not.toHaveProperty('maxAge');

    // The completer is down for two days, far past the key's 60-second retention: nothing of the key expires.
    clock.advance(TWO_DAYS_MS);
    await store.scavenge();
    expect(await metadataOf(keyStream)).not.toHaveProperty('maxAge');
    expect(await typesIn(keyStream)).toEqual(['IdempotencyKeyClaimed', 'IdempotencyEffectPlanned']);
    expect(await engine.readKeyState(keyStream)).toMatchObject({ status: 'inFlight' });

    writes.length = 0;
    const [resumed] = await completeAbandonedKeys({ engine, handlers, candidates: [keyStream] });
    expect(resumed).toMatchObject({ outcome: { kind: 'first', resumed: true } });
    // The retention went out just before the completing append, never with the claim.
    const completing = writes.lastIndexOf(keyStream);
    expect(writes.indexOf(`$$${keyStream}`)).toBe(completing - 1);
    expect(writes.lastIndexOf(`$$${keyStream}`)).toBe(completing - 1);
    // Counted from the claim: the claim expires a whole retention after the completion, not at it.
    expect((await metadataOf(keyStream)).maxAge).toBe(RETENTION_SECONDS + TWO_DAYS_MS / 1000);
    await store.scavenge();
    expect(await typesIn(keyStream)).toEqual([
      'IdempotencyKeyClaimed',
      'IdempotencyEffectPlanned',
      'IdempotencyLeaseTaken',
      'IdempotencyKeyCompleted',
    ]);
    const firstAnswer = await engine.execute(input());
    expect(firstAnswer).toMatchObject({ kind: 'replay', response: { status: 201 } });

    // A retention after the completion the claim and the plan expire; the completer's take-over and the completion,
    // written later, stay a little longer, and what remains folds to the same completion: the same answer, the
    // effect once.
    clock.advance((RETENTION_SECONDS + 1) * 1000);
    await store.scavenge();
    expect(await typesIn(keyStream)).toEqual(['IdempotencyLeaseTaken', 'IdempotencyKeyCompleted']);
    expect(await engine.readKeyState(keyStream)).toMatchObject({ status: 'completed' });
    const lateAnswer = await engine.execute(input());
    expect(lateAnswer).toMatchObject({ kind: 'replay' });
    expect(lateAnswer.kind === 'replay' && lateAnswer.response.body).toBe(
      firstAnswer.kind === 'replay' && firstAnswer.response.body,
    );
    expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);

    // Its own age later the completion is gone too: the key is absent.
    clock.advance(TWO_DAYS_MS);
    await store.scavenge();
    expect(await typesIn(keyStream)).toEqual([]);
    expect(await engine.readKeyState(keyStream)).toEqual({ status: 'absent' });
  });

  it('claimed again after its earlier life expired: the new life hides the old one by revision and has no $maxAge', async () => {
    const engine = engineWith({ completedKeys: { capacity: 0 } });
    const { input, keyStream, counterId, key } = fresh();
    expect(await engine.execute(input())).toMatchObject({ kind: 'first' });
    expect((await metadataOf(keyStream)).maxAge).toBeGreaterThanOrEqual(RETENTION_SECONDS);
    clock.advance(TWO_DAYS_MS);
    await store.scavenge();
    expect(await engine.readKeyState(keyStream)).toEqual({ status: 'absent' });

    // On a counter its earlier life never wrote to, the same key is a new request.
    const otherCounter = randomUUID();
    await abandon(input(otherCounter));
    const metadata = await metadataOf(keyStream);
    expect(metadata).not.toHaveProperty('maxAge');
    expect(metadata.truncateBefore).toEqual(expect.any(Number));
    clock.advance(TWO_DAYS_MS);
    await store.scavenge();
    expect(await typesIn(keyStream)).toEqual(['IdempotencyKeyClaimed', 'IdempotencyEffectPlanned']);

    const [resumed] = await completeAbandonedKeys({ engine, handlers, candidates: [keyStream] });
    expect(resumed).toMatchObject({ outcome: { kind: 'first', resumed: true } });
    expect(await engine.readKeyState(keyStream)).toMatchObject({ status: 'completed' });
    expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
    expect((await countIncrementsByKey(store, otherCounter)).get(key)).toBe(1);
  });

  it('reused on the counter its expired life wrote to: expired at every retry, the increment never written again', async () => {
    const { input, keyStream, counterId, key } = fresh();
    expect(await engineWith().execute(input())).toMatchObject({ kind: 'first' });
    clock.advance((RETENTION_SECONDS + 1) * 1000);
    await store.scavenge();
    expect(await engineWith().readKeyState(keyStream)).toEqual({ status: 'absent' });

    const engine = engineWith({ completedKeys: { capacity: 0 } });
    for (const attempt of [1, 2, 3]) {
      expect(await engine.execute(input()), `attempt ${attempt}`).toEqual({
        kind: 'expired',
        stream: `counter-${counterId}`,
      });
    }
    expect(await typesIn(keyStream)).toEqual([]);
    expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
  });
});
