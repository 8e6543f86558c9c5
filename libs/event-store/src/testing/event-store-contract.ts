import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  ReadAllBatch,
  RecordedEvent,
} from '../port/index.js';
import { UnsupportedOperationError, WrongExpectedRevisionError, comparePositions } from '../port/index.js';
import type { TestClock } from './contract-fixtures.js';
import {
  createTestClock,
  expectWrongRevision,
  freshStream,
  readAllUntil,
  someEvents,
} from './contract-fixtures.js';
import type { ContractFactory, ContractOptions, ContractSubject } from './contract-subject.js';
import { assertLateCommitProperty } from './late-commit-property.js';
import { describeReadStreamTails } from './read-stream-tails-contract.js';
import { describeAppendsTogether } from './appends-together-contract.js';

const ids = (events: readonly { id: string }[]): string[] => events.map((event) => event.id);

/** Asserts a re-append answered with the original result: its revision always, its position where the adapter can. */
const expectOriginalResult = (
  retry: AppendResult,
  original: AppendResult,
  options: ContractOptions,
): void => {
  expect(retry.nextExpectedRevision).toBe(original.nextExpectedRevision);
  if (options.exactAppendPosition ?? true)
    expect(comparePositions(retry.position, original.position)).toBe(0);
};

/**
 * The one contract every EventStore adapter passes. Rules that differ between adapters on purpose are asserted per
 * `options.semantics`, never skipped.
 *
 * @param name the adapter, as it appears in the test report
 * @param factory builds the adapter (once for the suite)
 * @param options the adapter's deliberate semantics, its clock, or why the suite is skipped
 * @example
 * describeEventStoreContract('in-memory', async ({ clock }) => ({ store: createInMemoryEventStore({ now: clock.now }) }), {
 *   semantics: 'eventstoredb',
 * });
 */
export const describeEventStoreContract = (
  name: string,
  factory: ContractFactory,
  options: ContractOptions,
): void => {
  if (options.skipReason !== undefined) {
    // Said out loud as well, so a run's log tells why these tests did not run.
    console.warn(`EventStore contract: ${name} skipped: ${options.skipReason}`);
    describe.skip(`EventStore contract: ${name} (skipped: ${options.skipReason})`, () => {
      it(`is skipped: ${options.skipReason}`, () => undefined);
    });
    return;
  }

  describe(`EventStore contract: ${name}`, () => {
    const clock: TestClock = createTestClock();
    let subject: ContractSubject;
    let store: EventStore;

    beforeAll(async () => {
      subject = await factory({ clock });
      store = subject.store;
    });
    afterAll(async () => {
      if (subject?.dispose) await subject.dispose();
      else await subject?.store.close();
    });

    describeExpectations(() => store, options);
    describeIdempotentReappend(() => store, options);
    describeConcurrency(() => store);
    describeConcurrentAny(() => store);
    describeMultiStreamAppend(() => store);
    describeAppendsTogether(() => store, options);
    describeReadStream(() => store);
    describeReadStreamTails(() => store);
    describeGlobalOrder(() => subject, options);
    describeSubscription(() => store);
    describeRetention(() => store, clock, options);
  });
};

const describeExpectations = (store: () => EventStore, options: ContractOptions): void => {
  describe('expected revisions (0-based)', () => {
    it('no_stream creates the stream; revisions start at 0', async () => {
      const stream = freshStream();
      const result = await store().appendToStream(stream, someEvents(3), { expectedRevision: 'no_stream' });
      expect(result.nextExpectedRevision).toBe(2n);
      expect((await store().readStream(stream)).map((event) => event.revision)).toEqual([0n, 1n, 2n]);
    });

    it('no_stream on an existing stream fails with the actual revision', async () => {
      const stream = freshStream();
      await store().appendToStream(stream, someEvents(1), { expectedRevision: 'no_stream' });
      const error = await expectWrongRevision(
        store().appendToStream(stream, someEvents(1), { expectedRevision: 'no_stream' }),
      );
      expect(error).toMatchObject({
        stream,
        expected: 'no_stream',
        actual: 0n,
        code: 'wrong-expected-revision',
      });
    });

    it("stream_exists on an absent stream fails with actual 'no_stream' (never a number)", async () => {
      const stream = freshStream();
      const error = await expectWrongRevision(
        store().appendToStream(stream, someEvents(1), { expectedRevision: 'stream_exists' }),
      );
      expect(error.actual).toBe('no_stream');
      expect(error.expected).toBe('stream_exists');
      expect(await store().readStream(stream)).toEqual([]);
    });

    it('stream_exists appends to an existing stream', async () => {
      const stream = freshStream();
      await store().appendToStream(stream, someEvents(1), { expectedRevision: 'no_stream' });
      const result = await store().appendToStream(stream, someEvents(2), {
        expectedRevision: 'stream_exists',
      });
      expect(result.nextExpectedRevision).toBe(2n);
    });

    it('any appends to an absent and to an existing stream', async () => {
      const stream = freshStream();
      expect(
        (await store().appendToStream(stream, someEvents(1), { expectedRevision: 'any' }))
          .nextExpectedRevision,
      ).toBe(0n);
      expect(
        (await store().appendToStream(stream, someEvents(1), { expectedRevision: 'any' }))
          .nextExpectedRevision,
      ).toBe(1n);
    });

    it('an explicit revision must equal the last revision exactly', async () => {
      const stream = freshStream();
      await store().appendToStream(stream, someEvents(2), { expectedRevision: 'no_stream' });
      const below = await expectWrongRevision(
        store().appendToStream(stream, someEvents(1), { expectedRevision: 0n }),
      );
      expect(below).toMatchObject({ stream, expected: 0n, actual: 1n });
      const above = await expectWrongRevision(
        store().appendToStream(stream, someEvents(1), { expectedRevision: 2n }),
      );
      expect(above).toMatchObject({ expected: 2n, actual: 1n });
      const result = await store().appendToStream(stream, someEvents(1), { expectedRevision: 1n });
      expect(result.nextExpectedRevision).toBe(2n);
    });

    it("revision 0 on an absent stream fails with actual 'no_stream'", async () => {
      const stream = freshStream();
      const error = await expectWrongRevision(
        store().appendToStream(stream, someEvents(1), { expectedRevision: 0n }),
      );
      expect(error).toMatchObject({ expected: 0n, actual: 'no_stream' });
      expect(typeof error.actual).toBe('string');
    });

    it('returns a position that the global read reports for the last event', async () => {
      const stream = freshStream('position');
      const result = await store().appendToStream(stream, someEvents(2), { expectedRevision: 'no_stream' });
      const { events } = await readAllUntil(
        store().readAll,
        { filter: { streamPrefixes: [stream] } },
        (seen) => seen.length >= 2,
      );
      const last = (events.at(-1) as RecordedEvent).position;
      if (options.exactAppendPosition ?? true) expect(comparePositions(result.position, last)).toBe(0);
      else
        expect(
          comparePositions(result.position, (events[0] as RecordedEvent).position),
        ).toBeGreaterThanOrEqual(0);
    });

    it('rejects an event id that is not a UUID and a negative revision', async () => {
      const stream = freshStream();
      await expect(
        store().appendToStream(stream, [{ id: 'not-a-uuid', type: 'X', data: {} }], {
          expectedRevision: 'any',
        }),
      ).rejects.toBeInstanceOf(TypeError);
      await expect(
        store().appendToStream(stream, someEvents(1), { expectedRevision: -1n }),
      ).rejects.toBeInstanceOf(RangeError);
    });
  });
};

const describeIdempotentReappend = (store: () => EventStore, options: ContractOptions): void => {
  describe(`idempotent re-append (${options.semantics} rules)`, () => {
    it('the same ids at the original explicit revision return the original result, even after later writes', async () => {
      const stream = freshStream();
      await store().appendToStream(stream, someEvents(1), { expectedRevision: 'no_stream' });
      const batch = someEvents(2);
      const original = await store().appendToStream(stream, batch, { expectedRevision: 0n });
      await store().appendToStream(stream, someEvents(1), { expectedRevision: 2n });
      const retry = await store().appendToStream(stream, batch, { expectedRevision: 0n });
      expect(retry.nextExpectedRevision).toBe(2n);
      expectOriginalResult(retry, original, options);
      expect(await store().readStream(stream)).toHaveLength(4);
    });

    it("the same ids with 'no_stream' when the original created the stream return the original result", async () => {
      const stream = freshStream();
      const batch = someEvents(2);
      const original = await store().appendToStream(stream, batch, { expectedRevision: 'no_stream' });
      await store().appendToStream(stream, someEvents(1), { expectedRevision: 1n });
      const retry = await store().appendToStream(stream, batch, { expectedRevision: 'no_stream' });
      expectOriginalResult(retry, original, options);
      expect(ids(await store().readStream(stream)).slice(0, 2)).toEqual(ids(batch));
      expect(await store().readStream(stream)).toHaveLength(3);
    });

    it('a retry that only partly overlaps the original fails with a wrong revision', async () => {
      const stream = freshStream();
      const batch = someEvents(2);
      await store().appendToStream(stream, batch, { expectedRevision: 'no_stream' });
      const error = await expectWrongRevision(
        store().appendToStream(stream, [...batch, ...someEvents(1)], { expectedRevision: 'no_stream' }),
      );
      expect(error.actual).toBe(1n);
      expect(await store().readStream(stream)).toHaveLength(2);
    });

    it('other ids at an old revision fail with the actual revision', async () => {
      const stream = freshStream();
      await store().appendToStream(stream, someEvents(2), { expectedRevision: 'no_stream' });
      const error = await expectWrongRevision(
        store().appendToStream(stream, someEvents(2), { expectedRevision: 'no_stream' }),
      );
      expect(error.actual).toBe(1n);
    });

    it("a retry with 'any' or 'stream_exists' soon after the original returns the original result", async () => {
      const stream = freshStream();
      const batch = someEvents(2);
      const original = await store().appendToStream(stream, batch, { expectedRevision: 'any' });
      expectOriginalResult(
        await store().appendToStream(stream, batch, { expectedRevision: 'any' }),
        original,
        options,
      );
      expectOriginalResult(
        await store().appendToStream(stream, batch, { expectedRevision: 'stream_exists' }),
        original,
        options,
      );
      expect(await store().readStream(stream)).toHaveLength(2);
    });

    if (options.semantics === 'eventstoredb') {
      it('the same ids at the current head are written again (EventStoreDB weak spot)', async () => {
        const stream = freshStream();
        const batch = someEvents(2);
        await store().appendToStream(stream, batch, { expectedRevision: 'no_stream' });
        const again = await store().appendToStream(stream, batch, { expectedRevision: 1n });
        expect(again.nextExpectedRevision).toBe(3n);
        expect(ids(await store().readStream(stream))).toEqual([...ids(batch), ...ids(batch)]);
      });
    } else {
      it('the same ids at the current head return the original result and write nothing (strict)', async () => {
        const stream = freshStream();
        const batch = someEvents(2);
        const original = await store().appendToStream(stream, batch, { expectedRevision: 'no_stream' });
        expect(await store().appendToStream(stream, batch, { expectedRevision: 1n })).toEqual(original);
        expect(await store().appendToStream(stream, batch, { expectedRevision: 'any' })).toEqual(original);
        expect(ids(await store().readStream(stream))).toEqual(ids(batch));
      });

      it('ids present but not at consecutive revisions fail with a wrong revision (strict)', async () => {
        const stream = freshStream();
        const [first, second] = someEvents(2) as [RecordedEvent, RecordedEvent];
        await store().appendToStream(stream, [first], { expectedRevision: 'no_stream' });
        await store().appendToStream(stream, someEvents(1), { expectedRevision: 0n });
        await store().appendToStream(stream, [second], { expectedRevision: 1n });
        const error = await expectWrongRevision(
          store().appendToStream(stream, [first, second], { expectedRevision: 'any' }),
        );
        expect(error.actual).toBe(2n);
      });
    }
  });
};

const describeConcurrency = (store: () => EventStore): void => {
  it('N writers racing on one stream: exactly one wins each revision', async () => {
    const stream = freshStream('race');
    const writers = 8;
    const rounds = 4;
    let expected: ExpectedRevision = 'no_stream';
    const winners: string[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const attempts = Array.from({ length: writers }, () => someEvents(1));
      const outcomes = await Promise.allSettled(
        attempts.map((events) => store().appendToStream(stream, events, { expectedRevision: expected })),
      );
      const won = outcomes.flatMap((outcome, index) => (outcome.status === 'fulfilled' ? [index] : []));
      expect(won).toHaveLength(1);
      const winner = won[0] as number;
      winners.push((attempts[winner]?.[0] as { id: string }).id);
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') {
          expect(outcome.reason).toBeInstanceOf(WrongExpectedRevisionError);
          expect((outcome.reason as WrongExpectedRevisionError).actual).toBe(BigInt(round));
        } else {
          expect(outcome.value.nextExpectedRevision).toBe(BigInt(round));
        }
      }
      expected = BigInt(round);
    }
    expect(ids(await store().readStream(stream))).toEqual(winners);
  });
};

const describeConcurrentAny = (store: () => EventStore): void => {
  it("N writers with 'any' on one stream all land, each at its own revision", async () => {
    const stream = freshStream('any-race');
    const attempts = Array.from({ length: 8 }, () => someEvents(2));
    const results = await Promise.all(
      attempts.map((events) => store().appendToStream(stream, events, { expectedRevision: 'any' })),
    );
    expect(results.map((result) => result.nextExpectedRevision).sort((a, b) => (a < b ? -1 : 1))).toEqual(
      Array.from({ length: 8 }, (_, index) => BigInt(index * 2 + 1)),
    );
    const read = await store().readStream(stream);
    expect(read.map((event) => event.revision)).toEqual(
      Array.from({ length: 16 }, (_, index) => BigInt(index)),
    );
    for (const events of attempts) {
      const at = read.findIndex((event) => event.id === events[0]?.id);
      expect(read[at + 1]?.id).toBe(events[1]?.id);
    }
  });
};

const describeMultiStreamAppend = (store: () => EventStore): void => {
  describe('appendMulti', () => {
    it('is all or nothing where offered, and refused with UnsupportedOperationError elsewhere', async () => {
      const existing = freshStream('multi');
      const fresh = freshStream('multi');
      await store().appendToStream(existing, someEvents(1), { expectedRevision: 'no_stream' });
      if (!store().capabilities.atomicMultiStreamAppend) {
        await expect(
          store().appendMulti([{ stream: fresh, events: someEvents(1), expectedRevision: 'no_stream' }]),
        ).rejects.toBeInstanceOf(UnsupportedOperationError);
        return;
      }
      const error = await expectWrongRevision(
        store().appendMulti([
          { stream: fresh, events: someEvents(1), expectedRevision: 'no_stream' },
          { stream: existing, events: someEvents(1), expectedRevision: 'no_stream' },
        ]),
      );
      expect(error).toMatchObject({ stream: existing, expected: 'no_stream', actual: 0n });
      expect(await store().readStream(fresh)).toEqual([]);
      expect(await store().readStream(existing)).toHaveLength(1);

      const keyEvents = someEvents(2);
      const aggregateEvents = someEvents(1);
      const appends = [
        { stream: fresh, events: keyEvents, expectedRevision: 'no_stream' as const },
        { stream: existing, events: aggregateEvents, expectedRevision: 0n },
      ];
      const results = await store().appendMulti(appends);
      expect(results.map((result) => result.nextExpectedRevision)).toEqual([1n, 1n]);
      expect(ids(await store().readStream(fresh))).toEqual(ids(keyEvents));
      expect(ids(await store().readStream(existing)).slice(1)).toEqual(ids(aggregateEvents));
      const retry = await store().appendMulti(appends);
      // A repeat reports the original revisions and positions; when the events were recorded is the first write's to tell.
      expect(retry.map(({ nextExpectedRevision, position }) => ({ nextExpectedRevision, position }))).toEqual(
        results.map(({ nextExpectedRevision, position }) => ({ nextExpectedRevision, position })),
      );
      expect(await store().readStream(existing)).toHaveLength(2);

      const halfRepeat = await expectWrongRevision(
        store().appendMulti([
          { stream: fresh, events: keyEvents, expectedRevision: 'no_stream' },
          { stream: existing, events: someEvents(1), expectedRevision: 1n },
        ]),
      );
      expect(halfRepeat.stream).toBe(fresh);
      expect(await store().readStream(existing)).toHaveLength(2);
    });

    it('a guarded write is made only as a new write whose every expectation holds, guards included', async () => {
      if (!store().capabilities.atomicMultiStreamAppend) return; // refused there: see above
      const key = freshStream('key');
      const aggregate = freshStream('aggregate');
      const retained = freshStream('retained');
      await store().appendToStream(aggregate, someEvents(1), { expectedRevision: 'no_stream' });
      const write = (events = someEvents(1), aggregateEvents = someEvents(1)) => [
        { stream: key, events, expectedRevision: 'no_stream' as const },
        { stream: aggregate, events: aggregateEvents, expectedRevision: 0n, expectNoRetention: true },
      ];

      // A stream with retention: its kept events may no longer stand, refused.
      await store().appendToStream(retained, someEvents(1), { expectedRevision: 'no_stream' });
      await store().setStreamRetention(retained, { maxAgeSeconds: 3600 });
      await expectWrongRevision(
        store().appendMulti([
          { stream: key, events: someEvents(1), expectedRevision: 'no_stream' },
          { stream: retained, events: someEvents(1), expectedRevision: 0n, expectNoRetention: true },
        ]),
      );
      expect(await store().readStream(retained)).toHaveLength(1);

      // Every guard holds: written, with when it was recorded where the store tells.
      const keyEvents = someEvents(1);
      const appends = write(keyEvents);
      const results = await store().appendMulti(appends);
      expect(results.map((result) => result.nextExpectedRevision)).toEqual([0n, 1n]);
      const [recorded] = await store().readStream(key);
      expect(recorded?.id).toBe(keyEvents[0]?.id);
      if (results[0]?.recordedAt !== undefined) expect(results[0].recordedAt).toEqual(recorded?.recordedAt);

      // The same write again is no repeat to answer: refused, and nothing more written.
      const repeat = await expectWrongRevision(store().appendMulti(appends));
      expect(repeat).toMatchObject({ stream: key, expected: 'no_stream', actual: 0n });
      expect(await store().readStream(aggregate)).toHaveLength(2);

      // A moved head, as without guards.
      const moved = await expectWrongRevision(
        store().appendMulti([
          {
            stream: freshStream('key'),
            events: someEvents(1),
            expectedRevision: 'no_stream',
          },
          { stream: aggregate, events: someEvents(1), expectedRevision: 0n, expectNoRetention: true },
        ]),
      );
      expect(moved).toMatchObject({ stream: aggregate, expected: 0n, actual: 1n });

      // A guard on a write the guards cannot be checked for is a caller's mistake.
      await expect(
        store().appendMulti([
          { stream: freshStream('key'), events: [], expectedRevision: 'no_stream' },
          { stream: aggregate, events: someEvents(1), expectedRevision: 1n, expectNoRetention: true },
        ]),
      ).rejects.toBeInstanceOf(RangeError);
    });

    it('concurrent multi-stream appends over the same streams in opposite orders all land', async () => {
      const [a, b] = [freshStream('pair'), freshStream('pair')];
      if (!store().capabilities.atomicMultiStreamAppend) {
        await expect(
          store().appendMulti([{ stream: a, events: someEvents(1), expectedRevision: 'any' }]),
        ).rejects.toBeInstanceOf(UnsupportedOperationError);
        return;
      }
      await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          store().appendMulti(
            (index % 2 === 0 ? [a, b] : [b, a]).map((stream) => ({
              stream,
              events: someEvents(1),
              expectedRevision: 'any' as const,
            })),
          ),
        ),
      );
      expect(await store().readStream(a)).toHaveLength(8);
      expect(await store().readStream(b)).toHaveLength(8);
    });
  });
};

const describeReadStream = (store: () => EventStore): void => {
  describe('readStream', () => {
    it('reads an absent stream as empty, in every direction', async () => {
      const stream = freshStream('absent');
      expect(await store().readStream(stream)).toEqual([]);
      expect(await store().readStream(stream, { direction: 'backwards' })).toEqual([]);
      expect(await store().readStream(stream, { fromRevision: 5n, maxCount: 2 })).toEqual([]);
    });

    it('reads from a revision, forwards and backwards, with a maximum count', async () => {
      const stream = freshStream();
      const events = someEvents(5);
      await store().appendToStream(stream, events, { expectedRevision: 'no_stream' });
      const forwards = await store().readStream(stream, { fromRevision: 1n, maxCount: 2 });
      expect(forwards.map((event) => event.revision)).toEqual([1n, 2n]);
      const backwards = await store().readStream(stream, { direction: 'backwards', maxCount: 2 });
      expect(backwards.map((event) => event.revision)).toEqual([4n, 3n]);
      const fromThree = await store().readStream(stream, { direction: 'backwards', fromRevision: 3n });
      expect(fromThree.map((event) => event.revision)).toEqual([3n, 2n, 1n, 0n]);
      expect(await store().readStream(stream, { fromRevision: 9n })).toEqual([]);
    });

    it('returns what was appended: id, type, data, metadata, stream, recordedAt', async () => {
      const stream = freshStream();
      const id = randomUUID();
      await store().appendToStream(
        stream,
        [
          {
            id,
            type: 'InvoiceIssued',
            data: { total: 1250, lines: [{ sku: 'a', qty: 2 }], note: null },
            metadata: { by: 'x' },
          },
        ],
        { expectedRevision: 'no_stream' },
      );
      const [event] = await store().readStream(stream);
      expect(event).toMatchObject({
        id,
        stream,
        revision: 0n,
        type: 'InvoiceIssued',
        data: { total: 1250, lines: [{ sku: 'a', qty: 2 }], note: null },
        metadata: { by: 'x' },
      });
      expect(event?.recordedAt).toBeInstanceOf(Date);
    });

    it('stores large events (1 MiB of data)', async () => {
      const stream = freshStream('large');
      const blob = 'x'.repeat(1024 * 1024);
      await store().appendToStream(stream, [{ id: randomUUID(), type: 'Large', data: { blob } }], {
        expectedRevision: 'no_stream',
      });
      const [event] = await store().readStream(stream);
      expect((event?.data as { blob: string }).blob).toHaveLength(blob.length);
    });

    it('accepts unicode stream names, and filters by a unicode prefix', async () => {
      const prefix = `ストリーム-ünïcödé-🚀-${randomUUID()}`;
      const stream = `${prefix}-請求書`;
      const events = someEvents(2, 'Überweisung').map((event) => ({
        ...event,
        data: { text: 'Zahlung für 請求書 🚀', quote: '"\\', nested: [null, 'ß'] },
      }));
      await store().appendToStream(stream, events, { expectedRevision: 'no_stream' });
      const read = await store().readStream(stream);
      expect(ids(read)).toEqual(ids(events));
      expect(read.map((event) => event.data)).toEqual(events.map((event) => event.data));
      const { events: global } = await readAllUntil(
        store().readAll,
        { filter: { streamPrefixes: [prefix] } },
        (seen) => seen.length >= 2,
      );
      expect(global.map((event) => event.stream)).toEqual([stream, stream]);
    });
  });
};

const describeGlobalOrder = (subject: () => ContractSubject, options: ContractOptions): void => {
  describe('global read', () => {
    it('reads every event once, in strictly increasing positions, in batches', async () => {
      const prefix = `global-${randomUUID()}-`;
      const appended: string[] = [];
      for (let index = 0; index < 6; index += 1) {
        const events = someEvents((index % 3) + 1);
        await subject().store.appendToStream(`${prefix}${index % 2}`, events, { expectedRevision: 'any' });
        appended.push(...ids(events));
      }
      const { events, batches } = await readAllUntil(
        subject().store.readAll,
        // Smaller than most writes here: pages end only at a write's end (see the test below), so 4 would need 2.
        { filter: { streamPrefixes: [prefix] }, maxCount: 2 },
        (seen) => seen.length >= appended.length,
      );
      expect(ids(events)).toEqual(appended);
      expect(batches).toBeGreaterThanOrEqual(3);
      events.slice(1).forEach((event, index) => {
        expect(comparePositions((events[index] as RecordedEvent).position, event.position)).toBeLessThan(0);
      });
    });

    it('filters by event type and by stream prefix, and both together', async () => {
      const prefix = `filter-${randomUUID()}-`;
      const typeA = `A${randomUUID().slice(0, 8)}`;
      const typeB = `B${randomUUID().slice(0, 8)}`;
      await subject().store.appendToStream(`${prefix}one`, someEvents(2, typeA), {
        expectedRevision: 'no_stream',
      });
      await subject().store.appendToStream(`${prefix}two`, someEvents(1, typeB), {
        expectedRevision: 'no_stream',
      });
      await subject().store.appendToStream(`other-${randomUUID()}`, someEvents(1, typeA), {
        expectedRevision: 'no_stream',
      });

      const byType = await readAllUntil(
        subject().store.readAll,
        { filter: { eventTypes: [typeA] } },
        (seen) => seen.length >= 3,
      );
      expect(byType.events.map((event) => event.type)).toEqual([typeA, typeA, typeA]);
      const byPrefix = await readAllUntil(
        subject().store.readAll,
        { filter: { streamPrefixes: [prefix] } },
        (s) => s.length >= 3,
      );
      expect(byPrefix.events.map((event) => event.type)).toEqual([typeA, typeA, typeB]);
      const both = await readAllUntil(
        subject().store.readAll,
        { filter: { streamPrefixes: [prefix], eventTypes: [typeB] } },
        (seen) => seen.length >= 1,
      );
      expect(both.events.map((event) => event.stream)).toEqual([`${prefix}two`]);
    });

    it('moves the checkpoint past events a sparse filter does not match', async () => {
      const prefix = `sparse-${randomUUID()}-`;
      await subject().store.appendToStream(`${prefix}x`, someEvents(3), { expectedRevision: 'no_stream' });
      const first = await readAllUntil(
        subject().store.readAll,
        { filter: { streamPrefixes: [prefix] } },
        (s) => s.length >= 3,
      );
      await subject().store.appendToStream(`noise-${randomUUID()}`, someEvents(3), {
        expectedRevision: 'no_stream',
      });
      const noise = await readAllUntil(subject().store.readAll, {
        filter: { streamPrefixes: [prefix] },
        ...(first.checkpoint ? { after: first.checkpoint } : {}),
      });
      expect(noise.events).toEqual([]);
      expect(noise.checkpoint).toBeDefined();
      expect(
        comparePositions(
          noise.checkpoint as NonNullable<ReadAllBatch['checkpoint']>,
          first.checkpoint as NonNullable<ReadAllBatch['checkpoint']>,
        ),
      ).toBeGreaterThan(0);
    });

    const wholeWrites =
      'a page never ends inside a write: with maxCount smaller than a write, no checkpoint lands inside it';
    if (options.pagesMayEndInsideAWrite !== undefined) {
      it.skip(`${wholeWrites} (skipped: ${options.pagesMayEndInsideAWrite})`, () => undefined);
    } else {
      it(wholeWrites, async () => {
        const store = subject().store;
        const prefix = `whole-writes-${randomUUID()}-`;
        const start = await store.appendToStream(`${prefix}start`, someEvents(1), {
          expectedRevision: 'no_stream',
        });
        const single = someEvents(5);
        await store.appendToStream(`${prefix}single`, single, { expectedRevision: 'no_stream' });
        const writes = [ids(single)];
        if (store.capabilities.atomicMultiStreamAppend) {
          const [first, second] = [someEvents(3), someEvents(3)];
          await store.appendMulti([
            { stream: `${prefix}a`, events: first, expectedRevision: 'no_stream' },
            { stream: `${prefix}b`, events: second, expectedRevision: 'no_stream' },
          ]);
          writes.push([...ids(first), ...ids(second)]);
        }
        const end = someEvents(1);
        await store.appendToStream(`${prefix}end`, end, { expectedRevision: 'no_stream' });

        const seen: RecordedEvent[] = [];
        const checkpoints: NonNullable<ReadAllBatch['checkpoint']>[] = [];
        let after = start.position;
        for (let reads = 0; reads < 50 && !seen.some((event) => event.id === end[0]?.id); reads += 1) {
          const batch = await store.readAll({ after, maxCount: 2 });
          seen.push(...batch.events);
          if (batch.checkpoint !== undefined) {
            checkpoints.push(batch.checkpoint);
            after = batch.checkpoint;
          }
        }
        expect(ids(seen)).toEqual([...writes.flat(), ...ids(end)]);
        for (const write of writes) {
          const positions = seen.filter((event) => write.includes(event.id)).map((event) => event.position);
          const sorted = [...positions].sort(comparePositions);
          const [first, last] = [sorted[0], sorted.at(-1)];
          if (first === undefined || last === undefined) throw new Error('the write was not read');
          for (const checkpoint of checkpoints) {
            const inside = comparePositions(checkpoint, first) >= 0 && comparePositions(checkpoint, last) < 0;
            expect(inside, `checkpoint inside a write of ${write.length} events`).toBe(false);
          }
        }
      });
    }

    it('late commits: every event exactly once, in checkpoint order (property)', async () => {
      await assertLateCommitProperty(subject(), { numRuns: options.propertyRuns ?? 12 });
    });
  });
};

const describeSubscription = (store: () => EventStore): void => {
  it('a subscription delivers batches, then resumes from a stored checkpoint', async () => {
    const prefix = `subscription-${randomUUID()}-`;
    const first = someEvents(3);
    await store().appendToStream(`${prefix}a`, first, { expectedRevision: 'no_stream' });

    let stored: ReadAllBatch['checkpoint'];
    const delivered: RecordedEvent[] = [];
    const followUp = someEvents(2);
    let notifyCount: () => void = () => undefined;
    const reached = (count: number) =>
      new Promise<void>((resolve) => {
        notifyCount = () => delivered.length >= count && resolve();
        notifyCount();
      });
    const subscription = store().subscribeToAll({
      filter: { streamPrefixes: [prefix] },
      maxCount: 2,
      pollIntervalMs: 10,
      onBatch: async (batch) => {
        delivered.push(...batch.events);
        stored = batch.checkpoint;
        notifyCount();
      },
    });
    await reached(3);
    await store().appendToStream(`${prefix}b`, followUp, { expectedRevision: 'no_stream' });
    await reached(5);
    await subscription.stop();
    await subscription.done;
    expect(ids(delivered)).toEqual([...ids(first), ...ids(followUp)]);

    const afterRestart = someEvents(1);
    await store().appendToStream(`${prefix}a`, afterRestart, { expectedRevision: 2n });
    const resumed: RecordedEvent[] = [];
    const controller = new AbortController();
    let resolveResumed: () => void = () => undefined;
    const gotOne = new Promise<void>((resolve) => {
      resolveResumed = resolve;
    });
    const restarted = store().subscribeToAll({
      filter: { streamPrefixes: [prefix] },
      ...(stored ? { after: stored } : {}),
      pollIntervalMs: 10,
      signal: controller.signal,
      onBatch: async (batch) => {
        resumed.push(...batch.events);
        if (resumed.length > 0) resolveResumed();
      },
    });
    await gotOne;
    controller.abort();
    await restarted.done;
    expect(ids(resumed)).toEqual(ids(afterRestart));
  });

  it('a subscription whose batch handler fails ends with that error', async () => {
    const prefix = `failing-${randomUUID()}-`;
    await store().appendToStream(`${prefix}a`, someEvents(1), { expectedRevision: 'no_stream' });
    const failure = new Error('handler failed');
    const subscription = store().subscribeToAll({
      filter: { streamPrefixes: [prefix] },
      pollIntervalMs: 10,
      onBatch: async (batch) => {
        if (batch.events.length > 0) throw failure;
      },
    });
    await expect(subscription.done).rejects.toBe(failure);
    await subscription.stop();
  });
};

const describeRetention = (store: () => EventStore, clock: TestClock, options: ContractOptions): void => {
  const realClock = options.clock === 'real';
  const scavengeRemoves = options.scavengeRemovesEvents ?? true;

  describe('retention', () => {
    it('truncateBefore hides earlier revisions at once; the revision still counts; scavenge removes them', async () => {
      const stream = freshStream('truncate');
      const events = someEvents(4);
      await store().appendToStream(stream, events, { expectedRevision: 'no_stream' });
      await store().setStreamRetention(stream, { truncateBefore: 2n });
      expect((await store().readStream(stream)).map((event) => event.revision)).toEqual([2n, 3n]);
      const error = await expectWrongRevision(
        store().appendToStream(stream, someEvents(1), { expectedRevision: 'no_stream' }),
      );
      expect(error.actual).toBe(3n);
      const { removedEvents } = await store().scavenge();
      if (scavengeRemoves) expect(removedEvents).toBeGreaterThanOrEqual(2);
      expect((await store().readStream(stream)).map((event) => event.revision)).toEqual([2n, 3n]);
      const next = await store().appendToStream(stream, someEvents(1), { expectedRevision: 3n });
      expect(next.nextExpectedRevision).toBe(4n);
    });

    it('an append can carry its retention: set with a write that succeeds, never by one that fails', async () => {
      const stream = freshStream('append-keep');
      await store().appendToStream(stream, someEvents(3), {
        expectedRevision: 'no_stream',
        retention: { truncateBefore: 2n },
      });
      expect((await store().readStream(stream)).map((event) => event.revision)).toEqual([2n]);
      await expectWrongRevision(
        store().appendToStream(stream, someEvents(1), {
          expectedRevision: 0n,
          retention: { truncateBefore: 3n },
        }),
      );
      expect((await store().readStream(stream)).map((event) => event.revision)).toEqual([2n]);
      await store().appendToStream(stream, someEvents(1), { expectedRevision: 2n });
      expect((await store().readStream(stream)).map((event) => event.revision)).toEqual([2n, 3n]);

      const aged = freshStream('append-aged');
      await store().appendToStream(aged, someEvents(2), {
        expectedRevision: 'no_stream',
        retention: { maxAgeSeconds: realClock ? 1 : 60 },
      });
      expect(await store().readStream(aged)).toHaveLength(2);
      if (realClock) await new Promise((resolve) => setTimeout(resolve, 2_500));
      else clock.advance(61);
      expect(await store().readStream(aged)).toEqual([]);
    });

    it('a stream without retention, or with truncateBefore only, is never hidden by age or scavenged', async () => {
      const [unretained, truncated] = [freshStream('unretained'), freshStream('truncated')];
      await store().appendToStream(unretained, someEvents(2), { expectedRevision: 'no_stream' });
      await store().appendToStream(truncated, someEvents(1), {
        expectedRevision: 'no_stream',
        retention: { maxAgeSeconds: realClock ? 1 : 60 },
      });
      // An idempotency key claimed again: its earlier life hidden by revision, the new one kept whatever its age.
      await store().appendToStream(truncated, someEvents(2), {
        expectedRevision: 0n,
        retention: { truncateBefore: 1n },
      });
      if (realClock) await new Promise((resolve) => setTimeout(resolve, 2_500));
      else clock.advance(30 * 24 * 3600);
      await store().scavenge();
      expect((await store().readStream(unretained)).map((event) => event.revision)).toEqual([0n, 1n]);
      expect((await store().readStream(truncated)).map((event) => event.revision)).toEqual([1n, 2n]);
    });

    it('appendMulti carries each stream its own retention, rolled back with a write that fails', async () => {
      if (!store().capabilities.atomicMultiStreamAppend) return; // refused there: see the appendMulti tests
      const [first, existing, other] = [freshStream('ma'), freshStream('mb'), freshStream('mc')];
      await store().appendToStream(existing, someEvents(1), { expectedRevision: 'no_stream' });
      await expectWrongRevision(
        store().appendMulti([
          {
            stream: first,
            events: someEvents(2),
            expectedRevision: 'no_stream',
            retention: { truncateBefore: 5n },
          },
          { stream: existing, events: someEvents(1), expectedRevision: 'no_stream' },
        ]),
      );
      await store().appendToStream(first, someEvents(2), { expectedRevision: 'no_stream' });
      expect(await store().readStream(first)).toHaveLength(2);

      await store().appendMulti([
        {
          stream: other,
          events: someEvents(3),
          expectedRevision: 'no_stream',
          retention: { truncateBefore: 2n },
        },
        { stream: existing, events: someEvents(1), expectedRevision: 0n, retention: { truncateBefore: 1n } },
      ]);
      expect((await store().readStream(other)).map((event) => event.revision)).toEqual([2n]);
      expect((await store().readStream(existing)).map((event) => event.revision)).toEqual([1n]);
    });

    it('where declared (maxAgeFromEachWrite), each event expires its age after its own write, a stream in use included', async () => {
      if (store().capabilities.maxAgeFromEachWrite !== true) return; // the adapter declares nothing of the kind
      const stream = freshStream('each-write');
      const wait = async (seconds: number) => {
        if (realClock) await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
        else clock.advance(seconds);
      };
      const [first, second] = [someEvents(1), someEvents(1)];
      await store().appendToStream(stream, first, {
        expectedRevision: 'no_stream',
        retention: { maxAgeSeconds: 4 },
      });
      await wait(2.5);
      await store().appendToStream(stream, second, { expectedRevision: 0n });
      await wait(2);
      expect((await store().readStream(stream)).map((event) => event.id)).toEqual([second[0]?.id]);
    });

    it('maxAgeSeconds hides events older than the age; a fully expired stream reads as empty', async () => {
      const prefix = `aged-${randomUUID()}-`;
      const stream = `${prefix}s`;
      const kept = freshStream('kept');
      await store().appendToStream(stream, someEvents(2), { expectedRevision: 'no_stream' });
      await store().appendToStream(kept, someEvents(1), { expectedRevision: 'no_stream' });
      await store().setStreamRetention(stream, { maxAgeSeconds: realClock ? 1 : 60 });
      expect(await store().readStream(stream)).toHaveLength(2);
      if (realClock) await new Promise((resolve) => setTimeout(resolve, 2_500));
      else clock.advance(61);
      expect(await store().readStream(stream)).toEqual([]);
      expect(await store().readStream(kept)).toHaveLength(1);
      if (scavengeRemoves) {
        const { events } = await readAllUntil(store().readAll, { filter: { streamPrefixes: [prefix] } });
        expect(events).toEqual([]);
        const { removedEvents } = await store().scavenge();
        expect(removedEvents).toBeGreaterThanOrEqual(2);
        expect(await store().readStream(kept)).toHaveLength(1);
      }
      const error = await expectWrongRevision(
        store().appendToStream(stream, someEvents(1), { expectedRevision: 'no_stream' }),
      );
      expect(error.actual).toBe(1n);
    });
  });
};
