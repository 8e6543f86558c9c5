import { randomUUID } from 'node:crypto';
import { createInMemoryEventStore } from '@once/event-store/in-memory';
import type { EventStore } from '@once/event-store';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  chargedIncrementHandler,
  countIncrementsByKey,
  createFakeGateway,
  createManualClock,
  incrementCounter,
  incrementCounterHandler,
  incrementInput,
  InjectedCrash,
} from '../testing/index.js';
import { bindCommand, commandHandlers } from '../commands/index.js';
import { keyStreamName } from '../key-log/index.js';
import { completeAbandonedKeys } from './complete-abandoned-keys.js';
import { faultPoints } from './fault-points.js';
import type { ExecuteOutcome } from './execute-outcome.js';
import { createIdempotencyEngine } from './idempotency-engine.js';

const LEASE_MS = 10_000;

/** Every store call waits for the scheduler before it runs, so fast-check chooses the interleaving. */
const scheduledStore = (store: EventStore, scheduler: fc.Scheduler): EventStore => {
  const gate =
    <Args extends unknown[], Result>(label: string, call: (...args: Args) => Promise<Result>) =>
    async (...args: Args): Promise<Result> => {
      await scheduler.schedule(Promise.resolve(), label);
      return call(...args);
    };
  return {
    ...store,
    capabilities: store.capabilities,
    appendToStream: gate('appendToStream', store.appendToStream),
    appendMulti: gate('appendMulti', store.appendMulti),
    readStream: gate('readStream', store.readStream),
    setStreamRetention: gate('setStreamRetention', store.setStreamRetention),
  };
};

const attempt = fc.record({
  crashAt: fc.option(fc.constantFrom(...faultPoints), { nil: undefined }),
  advanceMs: fc.constantFrom(0, 0, 4_000, LEASE_MS),
});
const scenario = fc.record({
  atomicStore: fc.boolean(),
  forcePhased: fc.boolean(),
  external: fc.boolean(),
  keys: fc.integer({ min: 1, max: 3 }),
  clients: fc.array(
    fc.record({ key: fc.nat(2), attempts: fc.array(attempt, { minLength: 1, maxLength: 3 }) }),
    {
      minLength: 1,
      maxLength: 4,
    },
  ),
});

describe('engine property: exactly one effect per key under any interleaving of clients, retries and crashes', () => {
  it('every key has 0 or 1 effects, 1 whenever any response was 2xx, and one body for all its 2xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        scenario,
        async (scheduler, { atomicStore, forcePhased, external, keys, clients }) => {
          const clock = createManualClock();
          const base = createInMemoryEventStore({
            atomicMultiStreamAppend: atomicStore,
            now: () => new Date(clock.now()),
          });
          const store = scheduledStore(base, scheduler);
          const gateway = createFakeGateway();
          const handler = external ? chargedIncrementHandler(gateway) : incrementCounterHandler();
          const scope = { tenantId: randomUUID(), actorId: randomUUID() };
          const counterId = randomUUID();
          const keyNames = Array.from({ length: keys }, () => randomUUID());
          const outcomes = new Map<string, ExecuteOutcome[]>(keyNames.map((key) => [key, []]));

          const runClient = async (client: (typeof clients)[number]) => {
            const key = keyNames[client.key % keys] as string;
            for (const step of client.attempts) {
              const engine = createIdempotencyEngine({
                store,
                clock: clock.now,
                leaseMs: LEASE_MS,
                protocol: forcePhased ? 'phased' : 'auto',
                sleep: async () => undefined,
                faults: (point) => {
                  if (point === step.crashAt) throw new InjectedCrash(point);
                },
              });
              try {
                outcomes
                  .get(key)
                  ?.push(await engine.execute({ scope, key, ...incrementInput(counterId, 1), handler }));
              } catch (error) {
                if (!(error instanceof InjectedCrash)) throw error;
              }
              clock.advance(step.advanceMs);
            }
          };
          await scheduler.waitFor(Promise.all(clients.map(runClient)));

          const effects = await countIncrementsByKey(base, counterId);
          for (const key of keyNames) {
            const count = effects.get(key) ?? 0;
            const successes = (outcomes.get(key) ?? []).flatMap((outcome) =>
              (outcome.kind === 'first' || outcome.kind === 'replay') && outcome.response.status < 300
                ? [outcome.response.body]
                : [],
            );
            expect(count).toBeLessThanOrEqual(1);
            if (successes.length > 0) expect(count).toBe(1);
            expect(new Set(successes).size).toBeLessThanOrEqual(1);
          }

          // Then the completer finishes whatever the crashes left in flight: each claimed key ends with one effect.
          clock.advance(LEASE_MS);
          const engine = createIdempotencyEngine({
            store: base,
            clock: clock.now,
            leaseMs: LEASE_MS,
            protocol: forcePhased ? 'phased' : 'auto',
          });
          await completeAbandonedKeys({
            engine,
            handlers: commandHandlers([bindCommand(incrementCounter, handler)]),
          });
          const settled = await countIncrementsByKey(base, counterId);
          for (const key of keyNames) {
            const state = await engine.readKeyState(keyStreamName(scope, key));
            expect(state.status).not.toBe('inFlight');
            expect(settled.get(key) ?? 0).toBe(state.status === 'completed' ? 1 : 0);
          }
          if (external) for (const charges of gateway.charges.values()) expect(charges).toBe(1);
        },
      ),
      { numRuns: 150 },
    );
  });
});
