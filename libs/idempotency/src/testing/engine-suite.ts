import { randomUUID } from 'node:crypto';
import { WrongExpectedRevisionError, comparePositions } from '@once/event-store';
import type { EventStore, GlobalPosition, RecordedEvent } from '@once/event-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeAbandonedKeys, createIdempotencyEngine, faultPoints } from '../engine/index.js';
import type {
  ExecuteInput,
  ExecuteOutcome,
  FaultPoint,
  IdempotencyEngine,
  IdempotencyEngineOptions,
} from '../engine/index.js';
import { keyStreamName } from '../key-log/index.js';
import {
  chargedIncrementHandler,
  COUNTER_ROUTE,
  countIncrementsByKey,
  counterStream as counterStreamOf,
  createFakeGateway,
  incrementCounter,
  incrementCounterHandler,
  incrementInput,
  incrementRequest,
} from './counter-aggregate.js';
import type { IncrementCounter } from './counter-aggregate.js';
import { bindCommand, commandHandlers } from '../commands/index.js';
import { createFaultInjector, createManualClock, InjectedCrash } from './fault-injector.js';
import { AcknowledgementLost, losingAcknowledgement } from './lost-acknowledgement.js';
import type { ManualClock } from './fault-injector.js';

export interface EngineSuiteSetup {
  /** A store for the whole file; tests isolate by fresh tenants and counters. */
  readonly createStore: (clock: ManualClock) => Promise<{ store: EventStore; release: () => Promise<void> }>;
  readonly protocol: 'auto' | 'phased';
  readonly expectedProtocol: 'atomic' | 'phased';
}

const LEASE_MS = 10_000;

/**
 * `base` with its reads watched: how many were made, and the streams whose events they handed over (a tail read left
 * out by `unlessExists` hands over none).
 */
const watchingReads = (base: EventStore) => {
  const reads = { count: 0, fetched: [] as string[] };
  const store: EventStore = {
    ...base,
    readStream: async (stream, options) => {
      reads.count += 1;
      reads.fetched.push(stream);
      return base.readStream(stream, options);
    },
  };
  store.readStreamTails = async (tailReads) => {
    reads.count += 1;
    const tails = await base.readStreamTails(tailReads);
    reads.fetched.push(
      ...tailReads.filter((_, index) => tails[index]?.skipped !== true).map((read) => read.stream),
    );
    return tails;
  };
  return { store, reads };
};

/** `base` with the appends it refused (`WrongExpectedRevisionError`) counted. */
const countingRefusals = (base: EventStore) => {
  const refusals = { count: 0 };
  const store: EventStore = {
    ...base,
    appendMulti: async (appends) => {
      try {
        return await base.appendMulti(appends);
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError) refusals.count += 1;
        throw error;
      }
    },
  };
  return { store, refusals };
};

/**
 * The engine's behaviour suite, run against every store and protocol: the article's tests, crashes at every
 * fault point, lease takeovers, releases, stored rejections and the completer.
 */
export const describeEngineSuite = (name: string, setup: EngineSuiteSetup): void => {
  describe(name, () => {
    const clock = createManualClock();
    let store: EventStore;
    let release: () => Promise<void>;

    beforeAll(async () => {
      ({ store, release } = await setup.createStore(clock));
    });
    afterAll(async () => {
      await release();
    });

    const engineWith = (options: Partial<IdempotencyEngineOptions> = {}): IdempotencyEngine =>
      createIdempotencyEngine({
        store,
        clock: clock.now,
        leaseMs: LEASE_MS,
        protocol: setup.protocol,
        retryBaseMs: 1,
        maxConflictRetries: 20,
        ...options,
      });

    const fresh = () => {
      const scope = { tenantId: randomUUID(), actorId: randomUUID() };
      const counterId = randomUUID();
      const key = randomUUID();
      const input = (
        by = 1,
        overrides: Partial<ExecuteInput<IncrementCounter>> = {},
      ): ExecuteInput<IncrementCounter> => ({
        scope,
        key,
        ...incrementInput(counterId, by),
        handler: incrementCounterHandler(),
        ...overrides,
      });
      return { scope, counterId, key, input };
    };

    const body = (outcome: ExecuteOutcome) =>
      outcome.kind === 'first' || outcome.kind === 'replay' ? outcome.response.body : undefined;

    it('runs a first request once and replays it byte for byte', async () => {
      const engine = engineWith();
      const { input, counterId, key } = fresh();
      const first = await engine.execute(input());
      expect(first).toMatchObject({
        kind: 'first',
        protocol: setup.expectedProtocol,
        response: { status: 201 },
      });
      const replay = await engine.execute(input());
      expect(replay.kind).toBe('replay');
      expect(body(replay)).toBe(body(first));
      expect(replay.kind === 'replay' && replay.response.headers).toEqual({
        location: `/counters/${counterId}`,
        'content-type': 'application/json; charset=utf-8',
      });
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
    });

    it("a retry reads its key's log, not the aggregates a first request decides on", async () => {
      const { store: reading, reads } = watchingReads(store);
      const { input, counterId } = fresh();
      const first = await engineWith().execute(input());
      // Another process: it did not complete the key, so it reads the key log.
      const replay = await engineWith({ store: reading, completedKeys: { capacity: 0 } }).execute(input());
      expect(replay.kind).toBe('replay');
      expect(body(replay)).toBe(body(first));
      expect(reads.fetched).not.toContain(counterStreamOf(counterId));
      expect(reads.fetched.length).toBeGreaterThan(0);
    });

    it('writes the key log the protocol prescribes: one completion naming the key (atomic), or claim first (phased)', async () => {
      const engine = engineWith();
      const { input, key, scope } = fresh();
      await engine.execute(input());
      const log = await store.readStream(keyStreamName(scope, key));
      const claim = { tenantId: scope.tenantId, actorId: scope.actorId, key };
      if (setup.expectedProtocol === 'atomic') {
        expect(log.map((event) => event.type)).toEqual(['IdempotencyKeyCompleted']);
        expect(log[0]?.data).toMatchObject({ claim, route: COUNTER_ROUTE, response: { status: 201 } });
      } else {
        expect(log[0]).toMatchObject({ type: 'IdempotencyKeyClaimed', data: claim });
        expect(log.at(-1)?.type).toBe('IdempotencyKeyCompleted');
        expect(log.at(-1)?.data).not.toHaveProperty('claim');
      }
    });

    describe('first requests decided on the events this engine keeps', () => {
      // Where the store reads tails and appends atomically, an engine keeps the counters it read or wrote and decides
      // the next first request on them with no read; elsewhere every request reads, and these hold all the same.
      const keeps = () => setup.expectedProtocol === 'atomic';
      const increment = (
        engine: IdempotencyEngine,
        scope: { tenantId: string; actorId: string },
        counterId: string,
        key = randomUUID(),
      ) =>
        engine.execute({ scope, key, ...incrementInput(counterId, 1), handler: incrementCounterHandler() });
      const valueOf = (outcome: ExecuteOutcome) => JSON.parse(body(outcome) ?? '{}').value as number;

      it('decides with no read, and the append proves what the read would have found', async () => {
        const { store: reading, reads } = watchingReads(store);
        const engine = engineWith({ store: reading });
        const { scope, counterId } = fresh();
        expect(valueOf(await increment(engine, scope, counterId))).toBe(1);
        const before = reads.count;
        const second = await increment(engine, scope, counterId);
        expect(second).toMatchObject({ kind: 'first', response: { status: 201 } });
        expect(valueOf(second)).toBe(2);
        if (keeps()) expect(reads.count).toBe(before);
        else expect(reads.count).toBeGreaterThan(before);
        const off = engineWith({ store: reading, decideOnKeptEvents: false });
        await increment(off, scope, counterId);
        const beforeOff = reads.count;
        expect(valueOf(await increment(off, scope, counterId))).toBe(4);
        expect(reads.count).toBeGreaterThan(beforeOff);
      });

      it('an engine that may keep no events reads before it decides on a counter it wrote, and counts each once', async () => {
        const { store: reading, reads } = watchingReads(store);
        const engine = engineWith({ store: reading, keptEvents: 0 });
        const { scope, counterId } = fresh();
        expect(valueOf(await increment(engine, scope, counterId))).toBe(1);
        const before = reads.count;
        for (const value of [2, 3, 4]) expect(valueOf(await increment(engine, scope, counterId))).toBe(value);
        expect(reads.count).toBeGreaterThanOrEqual(before + 3);
        const counts = await countIncrementsByKey(store, counterId);
        expect([...counts.values()]).toEqual([1, 1, 1, 1]);
      });

      it('where another engine writes the same counter between every request, the engine soon reads first', async () => {
        const { store: refusing, refusals } = countingRefusals(store);
        const [mine, theirs] = [engineWith({ store: refusing }), engineWith()];
        const { scope, counterId } = fresh();
        for (let round = 0; round < 48; round++) {
          await increment(mine, scope, counterId);
          await increment(theirs, scope, counterId);
        }
        // Each of its 48 requests found the counter moved; it was refused a handful of times, not 48.
        expect(refusals.count).toBeLessThan(16);
        const counts = await countIncrementsByKey(store, counterId);
        expect(counts.size).toBe(96);
        expect([...counts.values()].every((count) => count === 1)).toBe(true);
      });

      it('another writer moved the counter: decided again on what is read, each increment once', async () => {
        const [mine, theirs] = [engineWith(), engineWith()];
        const { scope, counterId } = fresh();
        await increment(mine, scope, counterId);
        await increment(theirs, scope, counterId);
        const key = randomUUID();
        const third = await increment(mine, scope, counterId, key);
        expect(valueOf(third)).toBe(3);
        const counts = await countIncrementsByKey(store, counterId);
        expect([...counts.values()]).toEqual([1, 1, 1]);
        expect(counts.get(key)).toBe(1);
      });

      it('a first request on a counter no one has written is decided as new, with no read', async () => {
        const { store: reading, reads } = watchingReads(store);
        const engine = engineWith({ store: reading });
        const { scope, counterId } = fresh();
        const first = await increment(engine, scope, counterId);
        expect(first).toMatchObject({ kind: 'first', response: { status: 201 } });
        expect(valueOf(first)).toBe(1);
        if (keeps()) expect(reads.count).toBe(0);
        else expect(reads.count).toBeGreaterThan(0);
        expect((await countIncrementsByKey(store, counterId)).size).toBe(1);
      });

      it('a counter another engine created is read and decided again, each increment once', async () => {
        const [mine, theirs] = [engineWith(), engineWith()];
        const { scope, counterId } = fresh();
        await increment(theirs, scope, counterId);
        // Mine knows nothing of the counter: decided as new, the append is refused, and it reads.
        expect(valueOf(await increment(mine, scope, counterId))).toBe(2);
        const counts = await countIncrementsByKey(store, counterId);
        expect([...counts.values()]).toEqual([1, 1]);
      });

      it('a key another engine completed replays, though this engine knows nothing of its counter', async () => {
        const [mine, theirs] = [engineWith(), engineWith()];
        const { scope, counterId } = fresh();
        const key = randomUUID();
        const completed = await increment(theirs, scope, counterId, key);
        const retried = await increment(mine, scope, counterId, key);
        expect(retried.kind).toBe('replay');
        expect(body(retried)).toBe(body(completed));
        expect([...(await countIncrementsByKey(store, counterId)).values()]).toEqual([1]);
      });

      it('where most first requests retry keys another engine completed, the engine soon reads first', async () => {
        const { store: refusing, refusals } = countingRefusals(store);
        const [mine, theirs] = [engineWith({ store: refusing }), engineWith()];
        const { scope } = fresh();
        const keys = Array.from({ length: 160 }, () => ({ key: randomUUID(), counterId: randomUUID() }));
        for (const { key, counterId } of keys) await increment(theirs, scope, counterId, key);
        for (const { key, counterId } of keys) {
          expect((await increment(mine, scope, counterId, key)).kind).toBe('replay');
        }
        // Each of its 160 requests was a retry, each counter new to it: refused a handful of times, not 160.
        expect(refusals.count).toBeLessThan(12);
      });

      it('a key another engine completed replays, though this engine keeps the counter up to its head', async () => {
        const [mine, theirs] = [engineWith(), engineWith()];
        const { scope, counterId } = fresh();
        const theirKey = randomUUID();
        const completed = await increment(theirs, scope, counterId, theirKey);
        await increment(mine, scope, counterId); // reads the counter, their increment included, and keeps it
        const retried = await increment(mine, scope, counterId, theirKey);
        expect(retried.kind).toBe('replay');
        expect(body(retried)).toBe(body(completed));
        expect((await countIncrementsByKey(store, counterId)).get(theirKey)).toBe(1);
      });

      it('a counter given a retention since it was kept is decided on what a read returns', async () => {
        const engine = engineWith();
        const { scope, counterId } = fresh();
        await increment(engine, scope, counterId);
        await increment(engine, scope, counterId);
        // Revision 0 is no longer read: the counter reads as one increment.
        await store.setStreamRetention(counterStreamOf(counterId), { truncateBefore: 1n });
        expect(valueOf(await increment(engine, scope, counterId))).toBe(2);
      });

      it('a rejection decided on kept events is read and decided again before it is stored', async () => {
        const engine = engineWith();
        const { scope, counterId } = fresh();
        const limited = (key: string) => ({
          scope,
          key,
          ...incrementInput(counterId, 1),
          handler: incrementCounterHandler({ limit: 2 }),
        });
        await increment(engine, scope, counterId);
        await increment(engine, scope, counterId);
        // A retention hides an increment this engine kept (decided on them, the counter is full): read, it is at 1.
        await store.setStreamRetention(counterStreamOf(counterId), { truncateBefore: 1n });
        expect(await engine.execute(limited(randomUUID()))).toMatchObject({
          kind: 'first',
          response: { status: 201 },
        });
      });
    });

    it("a replay carries where its key completed: a global reader that reached it has read the key's effect", async () => {
      const engine = engineWith();
      const { input, counterId, key, scope } = fresh();
      const marker = await store.appendToStream(
        `marker-${randomUUID()}`,
        [{ id: randomUUID(), type: 'Marker', data: {} }],
        { expectedRevision: 'no_stream' },
      );
      await engine.execute(input());
      const replay = await engine.execute(input());
      if (replay.kind !== 'replay' || replay.position === undefined)
        throw new Error(`expected a replay with a position, got ${replay.kind}`);
      const token = replay.position;
      const completed = (await store.readStream(keyStreamName(scope, key))).findLast(
        (event) => event.type === 'IdempotencyKeyCompleted',
      );
      expect(completed && comparePositions(completed.position, token)).toBe(0);
      // A projection reading one event per page stops as soon as its checkpoint reaches the token.
      const seen: RecordedEvent[] = [];
      let after: GlobalPosition = marker.position;
      for (let reads = 0; reads < 100 && comparePositions(after, token) < 0; reads += 1) {
        const batch = await store.readAll({ after, maxCount: 1 });
        seen.push(...batch.events);
        after = batch.checkpoint ?? after;
      }
      expect(comparePositions(after, token)).toBeGreaterThanOrEqual(0);
      expect(seen.some((event) => event.stream === counterStreamOf(counterId))).toBe(true);
    });

    it('answers a different body under the same key with reused, and applies nothing more', async () => {
      const engine = engineWith();
      const { input, counterId } = fresh();
      await engine.execute(input(1));
      expect(await engine.execute(input(2))).toMatchObject({ kind: 'reused' });
      expect(
        await engine.execute(input(1, { request: { ...incrementRequest(counterId, 1), route: '/other' } })),
      ).toMatchObject({
        kind: 'reused',
      });
      expect([...(await countIncrementsByKey(store, counterId)).values()]).toEqual([1]);
    });

    /** Hides every event of a key's log, as its retention does once it ends (the stream's revision stays). */
    const expireKeyLog = async (keyStream: string): Promise<void> => {
      const [last] = await store.readStream(keyStream, { direction: 'backwards', maxCount: 1 });
      if (last === undefined) throw new Error(`${keyStream} has no events to expire`);
      await store.setStreamRetention(keyStream, { truncateBefore: last.revision + 1n });
    };

    it('a key reused after its log expired, on a counter its effect is in, is answered expired: never twice, never contention', async () => {
      const { input, counterId, key, scope } = fresh();
      const keyStream = keyStreamName(scope, key);
      expect(await engineWith().execute(input())).toMatchObject({ kind: 'first' });
      await expireKeyLog(keyStream);
      expect(await engineWith().readKeyState(keyStream)).toEqual({ status: 'absent' });

      // Every retry, the same request or another, from a fresh process or the same one: the same definite answer.
      const engine = engineWith();
      for (const by of [1, 1, 2]) {
        expect(await engine.execute(input(by))).toEqual({
          kind: 'expired',
          stream: counterStreamOf(counterId),
        });
      }
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
      expect(await engine.readKeyState(keyStream)).toEqual({ status: 'absent' });

      // The same key on an aggregate it never wrote to is a new request.
      const elsewhere = randomUUID();
      expect(await engine.execute({ ...input(), ...incrementInput(elsewhere, 1) })).toMatchObject({
        kind: 'first',
      });
      expect((await countIncrementsByKey(store, elsewhere)).get(key)).toBe(1);
    });

    it('a phased key reused after its log expired is answered expired: the gateway is not called again', async () => {
      const gateway = createFakeGateway();
      const handler = chargedIncrementHandler(gateway);
      const { input, counterId, key, scope } = fresh();
      const keyStream = keyStreamName(scope, key);
      expect(await engineWith().execute(input(3, { handler }))).toMatchObject({ kind: 'first' });
      await expireKeyLog(keyStream);

      // Claimed, found recorded at its first effect, released. (Retries after that: the retention tests of each
      // store, since a release sets an age retention this revision-based expiry does not stand in for.)
      expect(await engineWith().execute(input(3, { handler }))).toEqual({
        kind: 'expired',
        stream: counterStreamOf(counterId),
      });
      expect([...gateway.charges.values()]).toEqual([1]);
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
    });

    it('10 concurrent duplicates give one effect, and every 2xx has the same body', async () => {
      const engine = engineWith();
      const { input, counterId, key } = fresh();
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => engine.execute(input())));
      expect(outcomes.filter((outcome) => outcome.kind === 'first')).toHaveLength(1);
      for (const outcome of outcomes) expect(['first', 'replay', 'in-flight']).toContain(outcome.kind);
      expect(new Set(outcomes.map(body).filter((text) => text !== undefined)).size).toBe(1);
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
    });

    it("another actor's same key is its own request, never a replay", async () => {
      const engine = engineWith();
      const { input, counterId, key, scope } = fresh();
      await engine.execute(input());
      const other = await engine.execute(input(1, { scope: { ...scope, actorId: randomUUID() } }));
      expect(other.kind).toBe('first');
      const otherTenant = await engine.execute(input(1, { scope: { ...scope, tenantId: randomUUID() } }));
      expect(otherTenant.kind).toBe('first');
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(3);
    });

    it('stores a deterministic business rejection and replays it after the state changed', async () => {
      const engine = engineWith();
      const { input, counterId } = fresh();
      const limited = incrementCounterHandler({ limit: 1 });
      await engine.execute({ ...fresh().input(), ...incrementInput(counterId, 1), handler: limited });
      const rejected = await engine.execute(input(1, { handler: limited }));
      expect(rejected).toMatchObject({ kind: 'first', response: { status: 409 } });
      const replayed = await engine.execute(input(1, { handler: incrementCounterHandler({ limit: 100 }) }));
      expect(replayed).toMatchObject({ kind: 'replay', response: { status: 409 } });
      expect(body(replayed)).toBe(body(rejected));
    });

    it('releases the key on a handler error, so the next try runs fresh', async () => {
      const engine = engineWith();
      const { input, counterId, key } = fresh();
      const failing = {
        ...incrementCounterHandler(),
        decide: () => {
          throw new Error('boom');
        },
      };
      expect(await engine.execute(input(1, { handler: failing }))).toMatchObject({
        kind: 'released',
        reason: 'handler-error',
      });
      expect(await engine.execute(input())).toMatchObject({ kind: 'first' });
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
    });

    it('a handler whose streams throws is released on a claim and writes nothing', async () => {
      const engine = engineWith();
      const { input, counterId, key } = fresh();
      const broken = {
        ...incrementCounterHandler(),
        streams: () => {
          throw new Error('no streams');
        },
      };
      expect(await engine.execute(input(1, { handler: broken }))).toMatchObject({
        kind: 'released',
        reason: 'handler-error',
      });
      const first = await engine.execute(input());
      expect(first).toMatchObject({ kind: 'first' });
      // The engine that completed the key answers it from memory, before it asks the handler for anything.
      const remembered = await engine.execute(input(1, { handler: broken }));
      expect(remembered).toMatchObject({ kind: 'replay' });
      expect(body(remembered)).toBe(body(first));
      // Another engine (another process) reads the key log.
      const replayed = await engineWith({ completedKeys: { capacity: 0 } }).execute(
        input(1, { handler: broken }),
      );
      // Both protocols read the key before they need streams (their shared opening): a stored answer replays.
      expect(replayed).toMatchObject({ kind: 'replay' });
      expect(body(replayed)).toBe(body(first));
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
    });

    it('does not store a 5xx answer', async () => {
      const engine = engineWith();
      const { input } = fresh();
      const unavailable = {
        ...incrementCounterHandler(),
        decide: () => ({ kind: 'reject' as const, response: { status: 503, body: { type: 'down' } } }),
      };
      expect(await engine.execute(input(1, { handler: unavailable }))).toMatchObject({
        kind: 'released',
        reason: 'server-error-response',
        response: { status: 503 },
      });
      expect(await engine.execute(input())).toMatchObject({ kind: 'first', response: { status: 201 } });
    });

    it('retries aggregate conflicts: concurrent keys on one counter all land, each once', async () => {
      const engine = engineWith();
      const { counterId, scope } = fresh();
      const keys = Array.from({ length: 6 }, () => randomUUID());
      const outcomes = await Promise.all(
        keys.map((key) =>
          engine.execute({
            scope,
            key,
            ...incrementInput(counterId, 1),
            handler: incrementCounterHandler(),
          }),
        ),
      );
      expect(outcomes.map((outcome) => outcome.kind)).toEqual(keys.map(() => 'first'));
      const counts = await countIncrementsByKey(store, counterId);
      expect(keys.map((key) => counts.get(key))).toEqual(keys.map(() => 1));
      const values = outcomes.map((outcome) => JSON.parse(body(outcome) ?? '{}').value as number).sort();
      expect(values).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it('gives up on endless aggregate conflicts with a retryable unavailable that stores nothing', async () => {
      const { input, counterId, key, scope } = fresh();
      const conflicting = counterStreamOf(counterId);
      const always = (stream: string) => {
        if (stream === conflicting) throw new WrongExpectedRevisionError(stream, 'no_stream', 99n);
      };
      const hostile: EventStore = {
        ...store,
        capabilities: store.capabilities,
        appendToStream: async (stream, events, options) => {
          always(stream);
          return store.appendToStream(stream, events, options);
        },
        appendMulti: async (appends) => {
          for (const append of appends) always(append.stream);
          return store.appendMulti(appends);
        },
      };
      const engine = engineWith({ store: hostile, maxConflictRetries: 2 });
      expect(await engine.execute(input())).toMatchObject({
        kind: 'unavailable',
        reason: 'contention',
        retryAfterSeconds: 1,
      });
      expect(['absent', 'released']).toContain((await engine.readKeyState(keyStreamName(scope, key))).status);
      expect(await engineWith().execute(input())).toMatchObject({ kind: 'first' });
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
    });

    it.each(faultPoints)(
      'a crash at %s followed by retries ends in one effect and one completed key',
      async (point: FaultPoint) => {
        const faults = createFaultInjector();
        const engine = engineWith({ faults: faults.hook });
        const { input, counterId, key, scope } = fresh();
        faults.arm(point);
        const crashed = engine.execute(input());
        if (
          setup.expectedProtocol === 'atomic' &&
          ['after-claim', 'after-plan', 'after-effect'].includes(point)
        ) {
          // The atomic protocol has no steps between claim and completion: these points never fire.
          expect(await crashed).toMatchObject({ kind: 'first' });
        } else {
          await expect(crashed).rejects.toBeInstanceOf(InjectedCrash);
        }
        const outcomes: ExecuteOutcome[] = [];
        for (let attempt = 0; attempt < 3; attempt++) {
          outcomes.push(await engine.execute(input()));
          clock.advance(LEASE_MS);
        }
        expect(outcomes.at(-1)?.kind).toMatch(/^(first|replay)$/);
        expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
        expect((await engine.readKeyState(keyStreamName(scope, key))).status).toBe('completed');
        const bodies = new Set(outcomes.map(body).filter((text) => text !== undefined));
        expect(bodies.size).toBe(1);
      },
    );

    describe('a lost acknowledgement: the store commits an append, then the call fails', () => {
      // Every append a first request makes, one at a time: the n-th commits and its caller is told it failed
      // (AcknowledgementLost). The request is then retried as a client would, after the lease when it is told to
      // wait. One effect, never two and never none; the retry answers the stored response when the lost append was
      // the key's completion, and resumes the key (phased) when it was any earlier one.
      const counterEvents = async (counterId: string, key: string) =>
        (await store.readStream(counterStreamOf(counterId)))
          .filter((event) => (event.data as { key?: string }).key === key)
          .map((event) => event.type);

      const attemptsUntilAnswered = async (run: () => Promise<ExecuteOutcome>) => {
        const outcomes: (ExecuteOutcome | AcknowledgementLost)[] = [];
        for (let attempt = 0; attempt < 4; attempt++) {
          const outcome = await run().catch((error: unknown) => {
            if (error instanceof AcknowledgementLost) return error;
            throw error;
          });
          outcomes.push(outcome);
          if (!(outcome instanceof AcknowledgementLost) && ['first', 'replay'].includes(outcome.kind)) break;
          clock.advance(LEASE_MS);
        }
        return outcomes;
      };

      // How many appends a first request makes: the atomic protocol's one; the phased claim with its plan, the
      // effect and the completion; with a step, each effect's plan and append and the step's two recovery points.
      const handlers = [
        {
          name: 'a decide handler',
          effects: ['CounterIncremented'],
          by: 1,
          charged: false,
          appends: setup.expectedProtocol === 'atomic' ? 1 : 3,
        },
        {
          name: 'a phased handler with an external step',
          effects: ['CounterReserved', 'CounterIncremented'],
          by: 3,
          charged: true,
          appends: 8,
        },
      ] as const;

      it.each(handlers)('at every append of $name ($appends)', async ({ effects, by, charged, appends }) => {
        let appendsOfARequest: number | undefined;
        for (let nth = 1; appendsOfARequest === undefined; nth++) {
          const { store: losing, lost } = losingAcknowledgement(store, nth);
          const gateway = createFakeGateway();
          const engine = engineWith({ store: losing });
          const { input, counterId, key } = fresh();
          const handler = charged ? chargedIncrementHandler(gateway) : incrementCounterHandler();
          const outcomes = await attemptsUntilAnswered(() => engine.execute(input(by, { handler })));
          const lostAppend = lost();
          if (lostAppend === undefined) appendsOfARequest = nth - 1;
          const at = `append ${nth} (${lostAppend?.types.join(' + ') ?? 'none: the request made fewer'})`;

          const answered = outcomes.at(-1);
          if (answered === undefined || answered instanceof AcknowledgementLost)
            throw new Error(`${at}: the retries never got an answer`);
          expect(answered.kind, at).toMatch(/^(first|replay)$/);
          expect(
            answered.kind !== 'first' && answered.kind !== 'replay' ? undefined : answered.response.status,
            at,
          ).toBe(201);
          expect(await counterEvents(counterId, key), at).toEqual(effects);
          if (charged) expect([...gateway.charges.values()], at).toEqual([1]);
          // Another process reads the key log: the same answer, byte for byte.
          const replayed = await engineWith({ completedKeys: { capacity: 0 } }).execute(
            input(by, { handler }),
          );
          expect(replayed.kind, at).toBe('replay');
          expect(body(replayed), at).toBe(body(answered));
          expect(JSON.parse(body(replayed) ?? '{}'), at).toMatchObject({ counterId });
          if (lostAppend === undefined) {
            expect(outcomes, at).toEqual([expect.objectContaining({ kind: 'first', resumed: false })]);
            continue;
          }
          if (lostAppend.types.includes('IdempotencyKeyCompleted'))
            expect(answered, `${at}: the stored response`).toMatchObject({ kind: 'replay' });
          else expect(answered, `${at}: the key resumed`).toMatchObject({ kind: 'first', resumed: true });
        }
        expect(appendsOfARequest).toBe(appends);
      });
    });

    it('two holders racing after a lease expiry: one completes, the other follows it', async () => {
      const faults = createFaultInjector();
      const engine = engineWith({ faults: faults.hook, protocol: 'phased' });
      const { input, counterId, key } = fresh();
      faults.arm('after-plan', 'hang');
      const stalled = engine.execute(input());
      await vitestWaitFor(() => faults.fired.length === 1);
      expect(await engine.execute(input())).toMatchObject({ kind: 'in-flight', retryAfterSeconds: 10 });
      clock.advance(LEASE_MS);
      const takeover = await engine.execute(input());
      expect(takeover).toMatchObject({ kind: 'first', resumed: true });
      faults.releaseHangs();
      const followed = await stalled;
      expect(followed.kind).toBe('replay');
      expect(body(followed)).toBe(body(takeover));
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
    });

    it('concurrent retries after a lease expiry: one takes the lease, the others wait or replay', async () => {
      const faults = createFaultInjector();
      const engine = engineWith({ faults: faults.hook, protocol: 'phased' });
      const { input, counterId, key } = fresh();
      faults.arm('after-plan');
      await expect(engine.execute(input())).rejects.toBeInstanceOf(InjectedCrash);
      clock.advance(LEASE_MS);
      const outcomes = await Promise.all(Array.from({ length: 5 }, () => engine.execute(input())));
      expect(outcomes.filter((outcome) => outcome.kind === 'first')).toEqual([
        expect.objectContaining({ resumed: true }),
      ]);
      for (const outcome of outcomes) expect(['first', 'in-flight', 'replay']).toContain(outcome.kind);
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
    });

    it('a stalled holder that wakes after the takeover completed cannot complete again', async () => {
      const faults = createFaultInjector();
      const engine = engineWith({ faults: faults.hook, protocol: 'phased' });
      const { input, counterId, key } = fresh();
      faults.arm('before-complete', 'hang');
      const stalled = engine.execute(input());
      await vitestWaitFor(() => faults.fired.length === 1);
      clock.advance(LEASE_MS);
      const takeover = await engine.execute(input());
      expect(takeover).toMatchObject({ kind: 'first', resumed: true });
      faults.releaseHangs();
      expect(await stalled).toMatchObject({ kind: 'replay' });
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
    });

    it('a claim records the typed command, not the request, and the completer resumes from it', async () => {
      const faults = createFaultInjector();
      const engine = engineWith({ faults: faults.hook, protocol: 'phased' });
      const { input, counterId, key, scope } = fresh();
      faults.arm('after-claim');
      await expect(engine.execute(input(4))).rejects.toBeInstanceOf(InjectedCrash);
      const [claimed] = await store.readStream(keyStreamName(scope, key));
      expect(claimed?.data).toMatchObject({
        commandType: 'IncrementCounter',
        commandVersion: 1,
        command: { counterId, by: 4 },
      });
      expect(claimed?.data).not.toHaveProperty('request');
      clock.advance(LEASE_MS);
      const handlers = commandHandlers([bindCommand(incrementCounter, incrementCounterHandler())]);
      const [result] = await completeAbandonedKeys({
        engine,
        handlers,
        candidates: [keyStreamName(scope, key)],
      });
      expect(result).toMatchObject({ outcome: { kind: 'first', resumed: true } });
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
    });

    it('the completer finishes an abandoned key without its client', async () => {
      const faults = createFaultInjector();
      const engine = engineWith({ faults: faults.hook, protocol: 'phased' });
      const { input, counterId, key, scope } = fresh();
      faults.arm('after-plan');
      await expect(engine.execute(input())).rejects.toBeInstanceOf(InjectedCrash);
      const keyStream = keyStreamName(scope, key);
      const handlers = commandHandlers([bindCommand(incrementCounter, incrementCounterHandler())]);
      expect(await completeAbandonedKeys({ engine, handlers, candidates: [keyStream] })).toEqual([
        { keyStream, skipped: 'lease-live' },
      ]);
      clock.advance(LEASE_MS);
      const results = await completeAbandonedKeys({ engine, handlers });
      expect(results.find((result) => result.keyStream === keyStream)).toMatchObject({
        outcome: { kind: 'first', resumed: true },
      });
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
      expect(await engine.execute(input())).toMatchObject({ kind: 'replay' });
    });

    it('a key in flight carries no retention; the append that completes it carries one counted from the completion', async () => {
      const retentions: { readonly types: readonly string[]; readonly retention: unknown }[] = [];
      const { input, scope, key } = fresh();
      const keyStream = keyStreamName(scope, key);
      const recording: EventStore = {
        ...store,
        appendToStream: async (stream, events, options) => {
          if (stream === keyStream) {
            retentions.push({ types: events.map((event) => event.type), retention: options.retention });
          }
          return store.appendToStream(stream, events, options);
        },
      };
      const faults = createFaultInjector();
      const engine = engineWith({
        store: recording,
        faults: faults.hook,
        protocol: 'phased',
        retentionSeconds: 60,
      });
      faults.arm('after-plan');
      await expect(engine.execute(input())).rejects.toBeInstanceOf(InjectedCrash);
      clock.advance(2 * 24 * 3600_000);
      const handlers = commandHandlers([bindCommand(incrementCounter, incrementCounterHandler())]);
      const [result] = await completeAbandonedKeys({ engine, handlers, candidates: [keyStream] });
      expect(result).toMatchObject({ outcome: { kind: 'first', resumed: true } });

      const completing = retentions.findIndex(({ types }) => types.includes('IdempotencyKeyCompleted'));
      expect(completing).toBe(retentions.length - 1);
      for (const { retention } of retentions.slice(0, completing)) expect(retention).toBeUndefined();
      expect(retentions[completing]?.retention).toEqual({ maxAgeSeconds: 60 + 2 * 24 * 3600 });
      expect(await engine.readKeyState(keyStream)).toMatchObject({ status: 'completed' });
    });

    it('external steps run once; a resume asks the gateway before charging again', async () => {
      const faults = createFaultInjector();
      const gateway = createFakeGateway();
      const engine = engineWith({ faults: faults.hook });
      const { input, counterId, key } = fresh();
      const handler = chargedIncrementHandler(gateway);
      // First crash: after the reservation was planned. Second (on the takeover): after the charge ran and the
      // recording effect was planned. The third holder must reuse the recorded charge, not call the gateway again.
      faults.arm('after-plan', 'throw', { times: 2 });
      await expect(engine.execute(input(5, { handler }))).rejects.toBeInstanceOf(InjectedCrash);
      clock.advance(LEASE_MS);
      await expect(engine.execute(input(5, { handler }))).rejects.toBeInstanceOf(InjectedCrash);
      clock.advance(LEASE_MS);
      const done = await engine.execute(input(5, { handler }));
      expect(done).toMatchObject({
        kind: 'first',
        protocol: 'phased',
        resumed: true,
        response: { status: 201 },
      });
      expect([...gateway.charges.values()]).toEqual([1]);
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
      expect(await engine.execute(input(5, { handler }))).toMatchObject({ kind: 'replay' });
    });

    it('a step that crashed mid-call is resumed with resumed=true and charged once', async () => {
      const gateway = createFakeGateway();
      let crashOnce = true;
      const crashingGateway = {
        ...gateway,
        charge: async (downstreamKey: string, amount: number) => {
          const result = await gateway.charge(downstreamKey, amount);
          if (crashOnce) {
            crashOnce = false;
            throw new InjectedCrash('after-effect');
          }
          return result;
        },
        inquire: gateway.inquire,
      };
      const engine = engineWith();
      const { input, counterId, key } = fresh();
      const handler = chargedIncrementHandler(crashingGateway);
      // The charge went through but its answer was lost: the key must stay in flight (not released).
      expect(await engine.execute(input(3, { handler }))).toMatchObject({
        kind: 'unavailable',
        reason: 'effects-pending',
      });
      expect(await engine.execute(input(3, { handler }))).toMatchObject({ kind: 'in-flight' });
      clock.advance(LEASE_MS);
      expect(await engine.execute(input(3, { handler }))).toMatchObject({ kind: 'first', resumed: true });
      expect([...gateway.charges.values()]).toEqual([1]);
      expect(gateway.inquiries).toBe(1);
      expect((await countIncrementsByKey(store, counterId)).get(key)).toBe(1);
    });

    it('reports every outcome to onOutcome with its route', async () => {
      const seen: string[] = [];
      const engine = engineWith({
        onOutcome: (outcome, route) => seen.push(`${route.method} ${route.route} ${outcome.kind}`),
      });
      const { input } = fresh();
      await engine.execute(input());
      await engine.execute(input());
      await engine.execute(input(2));
      expect(seen).toEqual([
        `POST ${COUNTER_ROUTE} first`,
        `POST ${COUNTER_ROUTE} replay`,
        `POST ${COUNTER_ROUTE} reused`,
      ]);
    });
  });
};

const vitestWaitFor = async (condition: () => boolean): Promise<void> => {
  for (let tries = 0; tries < 500 && !condition(); tries++)
    await new Promise((resolve) => setTimeout(resolve, 2));
  expect(condition()).toBe(true);
};
