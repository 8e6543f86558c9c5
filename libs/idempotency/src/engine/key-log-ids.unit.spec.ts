import { randomUUID } from 'node:crypto';
import { createInMemoryEventStore } from '@once/event-store/in-memory';
import type { EventStore } from '@once/event-store';
import { describe, expect, it } from 'vitest';
import { keyStreamName } from '../key-log/index.js';
import {
  countIncrementsByKey,
  createFaultInjector,
  createManualClock,
  incrementCounterHandler,
  incrementInput,
  InjectedCrash,
} from '../testing/index.js';
import { createIdempotencyEngine } from './idempotency-engine.js';

const LEASE_MS = 10_000;

/** The in-memory store with EventStoreDB's rules, remembering every append to a key stream as it was sent. */
const recordingStore = () => {
  const clock = createManualClock();
  const base = createInMemoryEventStore({ now: () => new Date(clock.now()) });
  const keyAppends: Parameters<EventStore['appendToStream']>[] = [];
  const store: EventStore = {
    ...base,
    capabilities: base.capabilities,
    appendToStream: async (...args) => {
      if (args[0].startsWith('idem-')) keyAppends.push(args);
      return base.appendToStream(...args);
    },
  };
  return { clock, base, store, keyAppends };
};

describe('key-log event IDs', () => {
  it('are derived, so a key-log append sent again after its acknowledgement was lost is a no-op', async () => {
    const { clock, base, store, keyAppends } = recordingStore();
    const engine = createIdempotencyEngine({ store, clock: clock.now, leaseMs: LEASE_MS });
    const scope = { tenantId: randomUUID(), actorId: randomUUID() };
    const key = randomUUID();
    const counterId = randomUUID();
    const handler = incrementCounterHandler();
    expect(await engine.execute({ scope, key, ...incrementInput(counterId, 1), handler })).toMatchObject({
      kind: 'first',
      protocol: 'phased',
    });
    const keyStream = keyStreamName(scope, key);
    const log = await base.readStream(keyStream);
    expect(keyAppends.length).toBeGreaterThan(1);
    for (const append of keyAppends) {
      const again = await base.appendToStream(...append);
      expect(again.nextExpectedRevision).toBeLessThanOrEqual(log.at(-1)?.revision ?? -1n);
    }
    expect(await base.readStream(keyStream)).toEqual(log);
    expect(await engine.execute({ scope, key, ...incrementInput(counterId, 1), handler })).toMatchObject({
      kind: 'replay',
    });
  });

  it('differ between holders, so two holders after a lease expiry cannot both write (fencing holds)', async () => {
    const { clock, base, store } = recordingStore();
    const faults = createFaultInjector();
    const engine = createIdempotencyEngine({
      store,
      clock: clock.now,
      leaseMs: LEASE_MS,
      faults: faults.hook,
    });
    const scope = { tenantId: randomUUID(), actorId: randomUUID() };
    const key = randomUUID();
    const counterId = randomUUID();
    const input = { scope, key, ...incrementInput(counterId, 1), handler: incrementCounterHandler() };
    faults.arm('after-claim');
    await expect(engine.execute(input)).rejects.toBeInstanceOf(InjectedCrash);
    faults.disarm();
    clock.advance(LEASE_MS);

    const outcomes = await Promise.all([
      createIdempotencyEngine({ store, clock: clock.now, leaseMs: LEASE_MS }).execute(input),
      createIdempotencyEngine({ store, clock: clock.now, leaseMs: LEASE_MS }).execute(input),
    ]);
    const log = await base.readStream(keyStreamName(scope, key));
    expect(log.filter((event) => event.type === 'IdempotencyLeaseTaken')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.kind === 'first')).toHaveLength(1);
    expect((await countIncrementsByKey(base, counterId)).get(key)).toBe(1);
    expect(new Set(log.map((event) => event.id)).size).toBe(log.length);
  });
});
