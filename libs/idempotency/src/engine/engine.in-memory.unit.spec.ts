import { randomUUID } from 'node:crypto';
import { CanonicalJsonError } from '@once/canonical-json';
import { createInMemoryEventStore } from '@once/event-store/in-memory';
import type { EventStore } from '@once/event-store';
import { describe, expect, it } from 'vitest';
import { bindCommand, commandHandlers } from '../commands/index.js';
import { keyStreamName } from '../key-log/index.js';
import { describeEngineSuite } from '../testing/engine-suite.js';
import {
  chargedIncrementHandler,
  countIncrementsByKey,
  createFakeGateway,
  createFaultInjector,
  createManualClock,
  incrementCounter,
  incrementCounterHandler,
  incrementInput,
  InjectedCrash,
} from '../testing/index.js';
import type { IncrementCounter } from '../testing/index.js';
import { completeAbandonedKeys } from './complete-abandoned-keys.js';
import { definePhasedHandler } from './command-handler.js';
import { createIdempotencyEngine } from './idempotency-engine.js';
import type { ExecuteInput, IdempotencyEngineOptions } from './idempotency-engine.js';

const inMemory = (atomicMultiStreamAppend: boolean) => async (clock: { now(): number }) => ({
  store: createInMemoryEventStore({ atomicMultiStreamAppend, now: () => new Date(clock.now()) }),
  release: async () => undefined,
});

describeEngineSuite('engine on the in-memory store with EventStoreDB rules (phased)', {
  createStore: inMemory(false),
  protocol: 'auto',
  expectedProtocol: 'phased',
});

describeEngineSuite('engine on the in-memory store with atomic appends (atomic)', {
  createStore: inMemory(true),
  protocol: 'auto',
  expectedProtocol: 'atomic',
});

describeEngineSuite('engine on the in-memory store with atomic appends, forced phased', {
  createStore: inMemory(true),
  protocol: 'phased',
  expectedProtocol: 'phased',
});

describe.each([
  { protocol: 'phased', atomicMultiStreamAppend: false },
  { protocol: 'atomic', atomicMultiStreamAppend: true },
])('key retention ($protocol protocol)', ({ protocol, atomicMultiStreamAppend }) => {
  const setup = () => {
    const clock = createManualClock();
    const base = createInMemoryEventStore({ atomicMultiStreamAppend, now: () => new Date(clock.now()) });
    const separateRetentionCalls: string[] = [];
    const store: EventStore = {
      ...base,
      capabilities: base.capabilities,
      setStreamRetention: async (stream, retention) => {
        separateRetentionCalls.push(stream);
        return base.setStreamRetention(stream, retention);
      },
    };
    const engine = createIdempotencyEngine({ store, clock: clock.now });
    const scope = { tenantId: randomUUID(), actorId: randomUUID() };
    const input = (
      key: string,
      retentionSeconds?: number,
      counterId = 'c1',
    ): ExecuteInput<IncrementCounter> => ({
      scope,
      key,
      ...incrementInput(counterId, 1),
      handler: incrementCounterHandler(),
      ...(retentionSeconds === undefined ? {} : { retentionSeconds }),
    });
    return { clock, store, engine, input, separateRetentionCalls };
  };

  it('keeps a key 24 hours by default; after that the key is expired where its effect is, new elsewhere', async () => {
    const { clock, store, engine, input } = setup();
    const key = randomUUID();
    expect(await engine.execute(input(key))).toMatchObject({ kind: 'first', protocol });
    clock.advance(23 * 3600_000);
    expect(await engine.execute(input(key))).toMatchObject({ kind: 'replay' });
    clock.advance(3600_000 + 1_000);
    expect(await engine.execute(input(key))).toEqual({ kind: 'expired', stream: 'counter-c1' });
    await store.scavenge();
    expect(await engine.execute(input(key))).toEqual({ kind: 'expired', stream: 'counter-c1' });
    expect((await countIncrementsByKey(store, 'c1')).get(key)).toBe(1);
    expect(await engine.execute(input(key, undefined, 'c2'))).toMatchObject({ kind: 'first' });
  });

  it('honours a per-route retention', async () => {
    const { clock, engine, input } = setup();
    const key = randomUUID();
    await engine.execute(input(key, 7 * 24 * 3600));
    clock.advance(6 * 24 * 3600_000);
    expect(await engine.execute(input(key, 7 * 24 * 3600))).toMatchObject({ kind: 'replay' });
    clock.advance(24 * 3600_000 + 1_000);
    expect(await engine.execute(input(key, 7 * 24 * 3600))).toMatchObject({ kind: 'expired' });
  });

  it('a phased key reused after its retention is expired at every retry, and charged once', async () => {
    const { clock, store, engine, input } = setup();
    const gateway = createFakeGateway();
    const key = randomUUID();
    const charged = { ...input(key), handler: chargedIncrementHandler(gateway) };
    expect(await engine.execute(charged)).toMatchObject({ kind: 'first', protocol: 'phased' });
    clock.advance(24 * 3600_000 + 1_000);
    for (const attempt of [1, 2, 3]) {
      expect(await engine.execute(charged), `attempt ${attempt}`).toEqual({
        kind: 'expired',
        stream: 'counter-c1',
      });
      clock.advance(60_000);
      await store.scavenge();
    }
    expect([...gateway.charges.values()]).toEqual([1]);
    expect((await countIncrementsByKey(store, 'c1')).get(key)).toBe(1);
  });

  it('a key whose handler calls out before its effect is expired at every retry, never kept in flight', async () => {
    const { clock, store, engine, input } = setup();
    const lookups = { count: 0 };
    const handler = definePhasedHandler<IncrementCounter>({
      run: async (ctx) => {
        const stream = `counter-${ctx.command.counterId}`;
        await ctx.step('price_looked_up', async () => ({ lookup: ++lookups.count }));
        await ctx.effect('counted', {
          streams: [stream],
          decide: () => ({
            kind: 'accept',
            writes: [{ stream, events: [{ type: 'CounterIncremented', data: { by: 1, key: ctx.key } }] }],
            result: null,
          }),
        });
        return { status: 201, body: {} };
      },
    });
    const key = randomUUID();
    expect(await engine.execute({ ...input(key), handler })).toMatchObject({ kind: 'first' });
    clock.advance(24 * 3600_000 + 1_000);
    for (const attempt of [1, 2]) {
      // The step ran again in this life, but the effect it leads to is recorded: released, not left in flight.
      expect(await engine.execute({ ...input(key), handler }), `attempt ${attempt}`).toEqual({
        kind: 'expired',
        stream: 'counter-c1',
      });
      clock.advance(60_000);
    }
    expect((await countIncrementsByKey(store, 'c1')).get(key)).toBe(1);
    expect(lookups.count).toBe(3);
  });

  it("sets the retention in the claim's own write, not with a separate call", async () => {
    const { engine, input, separateRetentionCalls } = setup();
    expect(await engine.execute(input(randomUUID()))).toMatchObject({ kind: 'first', protocol });
    expect(separateRetentionCalls).toEqual([]);
  });
});

describe.each([{ atomicMultiStreamAppend: false }, { atomicMultiStreamAppend: true }])(
  'a key in flight never expires (phased, atomic appends: $atomicMultiStreamAppend)',
  ({ atomicMultiStreamAppend }) => {
    const day = 24 * 3600_000;
    const setup = () => {
      const clock = createManualClock();
      const store = createInMemoryEventStore({ atomicMultiStreamAppend, now: () => new Date(clock.now()) });
      const faults = createFaultInjector();
      const engine = createIdempotencyEngine({
        store,
        clock: clock.now,
        protocol: 'phased',
        leaseMs: 30_000,
        faults: faults.hook,
        completedKeys: { capacity: 0 },
      });
      const scope = { tenantId: randomUUID(), actorId: randomUUID() };
      const counterId = randomUUID();
      const key = randomUUID();
      const input = (
        overrides: Partial<ExecuteInput<IncrementCounter>> = {},
      ): ExecuteInput<IncrementCounter> => ({
        scope,
        key,
        ...incrementInput(counterId, 1),
        handler: incrementCounterHandler(),
        ...overrides,
      });
      const handlers = commandHandlers([bindCommand(incrementCounter, incrementCounterHandler())]);
      return {
        clock,
        store,
        faults,
        engine,
        input,
        handlers,
        keyStream: keyStreamName(scope, key),
        counterId,
        key,
      };
    };

    it('an abandoned key outlives many retentions and scavenges; its retention starts at its completion', async () => {
      const { clock, store, faults, engine, input, handlers, keyStream, counterId, key } = setup();
      faults.arm('after-plan');
      await expect(engine.execute(input())).rejects.toBeInstanceOf(InjectedCrash);

      // The completer is down for 30 days (retention: 1 day); the store scavenges meanwhile.
      clock.advance(30 * day);
      await store.scavenge();
      expect(await engine.readKeyState(keyStream)).toMatchObject({ status: 'inFlight' });

      const [result] = await completeAbandonedKeys({ engine, handlers, candidates: [keyStream] });
      expect(result).toMatchObject({ outcome: { kind: 'first', resumed: true } });
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);

      // A late retry within a retention of the completion replays it, though the claim is 31 days old.
      clock.advance(day - 60_000);
      await store.scavenge();
      expect(await engine.execute(input())).toMatchObject({ kind: 'replay' });

      // Long after that, the key has expired whole and is a new request.
      clock.advance(61 * day);
      await store.scavenge();
      expect(await engine.readKeyState(keyStream)).toEqual({ status: 'absent' });
    });

    it('a key claimed again after its release is in flight again, and never expires while it is', async () => {
      const { clock, store, faults, engine, input, handlers, keyStream, counterId, key } = setup();
      const failing = {
        ...incrementCounterHandler(),
        decide: () => {
          throw new Error('boom');
        },
      };
      expect(await engine.execute(input({ handler: failing }))).toMatchObject({ kind: 'released' });
      clock.advance(3600_000);
      faults.arm('after-plan');
      await expect(engine.execute(input())).rejects.toBeInstanceOf(InjectedCrash);

      clock.advance(30 * day);
      await store.scavenge();
      expect(await engine.readKeyState(keyStream)).toMatchObject({ status: 'inFlight' });
      const [result] = await completeAbandonedKeys({ engine, handlers, candidates: [keyStream] });
      expect(result).toMatchObject({ outcome: { kind: 'first', resumed: true } });
      clock.advance(day - 60_000);
      expect(await engine.execute(input())).toMatchObject({ kind: 'replay' });
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
    });
  },
);

describe('store calls per execute (round trips on PostgreSQL)', () => {
  const counting = (
    atomicMultiStreamAppend: boolean,
    engineOptions: Partial<IdempotencyEngineOptions> = { completedKeys: { capacity: 0 } },
  ) => {
    const base = createInMemoryEventStore({ atomicMultiStreamAppend });
    const calls: string[] = [];
    const store: EventStore = {
      ...base,
      capabilities: base.capabilities,
      readStream: async (...args) => {
        calls.push('readStream');
        return base.readStream(...args);
      },
      readStreamTails: async (...args) => {
        calls.push('readStreamTails');
        return base.readStreamTails(...args);
      },
      appendToStream: async (...args) => {
        calls.push('appendToStream');
        return base.appendToStream(...args);
      },
      appendMulti: async (...args) => {
        calls.push('appendMulti');
        return base.appendMulti(...args);
      },
      setStreamRetention: async (...args) => {
        calls.push('setStreamRetention');
        return base.setStreamRetention(...args);
      },
    };
    return { engine: createIdempotencyEngine({ store, ...engineOptions }), calls };
  };
  const scope = { tenantId: randomUUID(), actorId: randomUUID() };
  const input = (key: string): ExecuteInput<IncrementCounter> => ({
    scope,
    key,
    ...incrementInput(key, 1),
    handler: incrementCounterHandler(),
  });

  it('atomic: a first request reads the key and the aggregate in one call and writes once; a replay reads the key only', async () => {
    const { engine, calls } = counting(true, { completedKeys: { capacity: 0 }, decideOnKeptEvents: false });
    const key = randomUUID();
    expect(await engine.execute(input(key))).toMatchObject({ kind: 'first', protocol: 'atomic' });
    expect(calls.splice(0)).toEqual(['readStreamTails', 'appendMulti']);
    expect(await engine.execute(input(key))).toMatchObject({ kind: 'replay' });
    expect(calls.splice(0)).toEqual(['readStreamTails']);
  });

  it('atomic: a first request on an aggregate no one has written is decided as new and written in one call', async () => {
    const { engine, calls } = counting(true);
    const key = randomUUID();
    expect(await engine.execute(input(key))).toMatchObject({ kind: 'first', protocol: 'atomic' });
    expect(calls.splice(0)).toEqual(['appendMulti']);
  });

  it('a key this engine completed is answered from memory: a replay or a reuse reads nothing', async () => {
    const clock = { now: Date.parse('2026-01-01T00:00:00Z') };
    for (const atomic of [true, false]) {
      const { engine, calls } = counting(atomic, { clock: () => clock.now, decideOnKeptEvents: false });
      const key = randomUUID();
      const first = await engine.execute(input(key));
      expect(first).toMatchObject({ kind: 'first' });
      calls.splice(0);
      const replay = await engine.execute(input(key));
      expect(replay).toMatchObject({
        kind: 'replay',
        response: first.kind === 'first' ? first.response : {},
      });
      expect(replay.kind === 'replay' && replay.position).toBeTruthy();
      expect(await engine.execute({ ...input(key), ...incrementInput(key, 2) })).toMatchObject({
        kind: 'reused',
      });
      expect(calls.splice(0)).toEqual([]);
      // After the time it is kept (5 minutes by default) the key log is read again, and remembered again.
      clock.now += 5 * 60_000;
      expect(await engine.execute(input(key))).toMatchObject({ kind: 'replay' });
      expect(calls.splice(0)).toEqual(['readStreamTails']);
      expect(await engine.execute(input(key))).toMatchObject({ kind: 'replay' });
      expect(calls.splice(0)).toEqual([]);
    }
  });

  it('compares a retry with the request it remembers as JSON: another key order replays, another value is a reuse', async () => {
    const { engine, calls } = counting(true, { decideOnKeptEvents: false });
    const key = randomUUID();
    const sent = (body: unknown, method = 'POST'): ExecuteInput<IncrementCounter> => ({
      ...input(key),
      request: { method, route: '/counters/:id/increments', params: { id: key }, body },
    });
    expect(await engine.execute(sent({ by: 1, note: { a: 1, b: [true, null] } }))).toMatchObject({
      kind: 'first',
    });
    calls.splice(0);
    expect(await engine.execute(sent({ note: { b: [true, null], a: 1 }, by: 1 }, 'post'))).toMatchObject({
      kind: 'replay',
    });
    expect(await engine.execute(sent({ by: 1, note: { a: 2, b: [true, null] } }))).toMatchObject({
      kind: 'reused',
    });
    expect(await engine.execute(sent({ by: 1, note: { a: 1, b: [true] } }))).toMatchObject({
      kind: 'reused',
    });
    expect(calls.splice(0)).toEqual([]);
    // The same fields in an object that is not JSON: refused as execute promises, never taken for the request.
    const foreign = Object.assign(Object.create({ inherited: true }) as object, { a: 1, b: [true, null] });
    await expect(engine.execute(sent({ by: 1, note: foreign }))).rejects.toBeInstanceOf(CanonicalJsonError);
  });

  it('a completed key is never answered from memory past its own expiry', async () => {
    const clock = { now: Date.parse('2026-01-01T00:00:00Z') };
    const { engine, calls } = counting(true, {
      clock: () => clock.now,
      retentionSeconds: 120,
      decideOnKeptEvents: false,
    });
    const key = randomUUID();
    await engine.execute(input(key));
    calls.splice(0);
    // Kept until a minute before the retention ends (the store's and the engine's clocks may differ).
    clock.now += 59_000;
    expect(await engine.execute(input(key))).toMatchObject({ kind: 'replay' });
    expect(calls.splice(0)).toEqual([]);
    clock.now += 1_000;
    await engine.execute(input(key));
    expect(calls.splice(0)).toEqual(['readStreamTails']);
  });

  it('phased: a first request reads key and aggregate in one call, then claims with its plan, applies it and completes; a replay reads the key only', async () => {
    const { engine, calls } = counting(false);
    const key = randomUUID();
    expect(await engine.execute(input(key))).toMatchObject({ kind: 'first', protocol: 'phased' });
    expect(calls.splice(0)).toEqual([
      'readStreamTails',
      'appendToStream',
      'appendToStream',
      'appendToStream',
    ]);
    expect(await engine.execute(input(key))).toMatchObject({ kind: 'replay' });
    expect(calls.splice(0)).toEqual(['readStreamTails']);
  });
});
