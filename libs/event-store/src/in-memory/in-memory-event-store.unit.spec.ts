import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { EventToAppend } from '../port/index.js';
import { UnsupportedOperationError, WrongExpectedRevisionError } from '../port/index.js';
import { createInMemoryEventStore } from './in-memory-event-store.js';

const events = (count: number): EventToAppend[] =>
  Array.from({ length: count }, (_, index) => ({ id: randomUUID(), type: 'Happened', data: { index } }));

const wrongRevision = async (promise: Promise<unknown>): Promise<WrongExpectedRevisionError> => {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WrongExpectedRevisionError);
  return error as WrongExpectedRevisionError;
};

describe('in-memory event store: EventStoreDB rules beyond the shared contract', () => {
  it('writes the same ids again when re-appended at the current head', async () => {
    const store = createInMemoryEventStore();
    const batch = events(2);
    await store.appendToStream('s', batch, { expectedRevision: 'no_stream' });
    const again = await store.appendToStream('s', batch, { expectedRevision: 1n });
    expect(again.nextExpectedRevision).toBe(3n);
    expect((await store.readStream('s')).map((event) => event.id)).toEqual(
      [...batch, ...batch].map((e) => e.id),
    );
  });

  it('deduplicates `any` only while the ids are in the recent-id cache', async () => {
    const store = createInMemoryEventStore({ recentEventIdCapacity: 3 });
    const batch = events(2);
    const first = await store.appendToStream('s', batch, { expectedRevision: 'any' });
    expect(await store.appendToStream('s', batch, { expectedRevision: 'any' })).toEqual(first);
    expect(await store.appendToStream('s', batch, { expectedRevision: 'stream_exists' })).toEqual(first);
    await store.appendToStream('other', events(2), { expectedRevision: 'any' });
    // batch[0] fell out of the FIFO cache: the retry is written again as a duplicate.
    const duplicate = await store.appendToStream('s', batch, { expectedRevision: 'any' });
    expect(duplicate.nextExpectedRevision).toBe(3n);
    expect(await store.readStream('s')).toHaveLength(4);
  });

  it('answers `any` with a wrong revision when the first id is cached but a later one is not', async () => {
    const store = createInMemoryEventStore();
    const batch = events(1);
    await store.appendToStream('s', batch, { expectedRevision: 'no_stream' });
    const error = await wrongRevision(
      store.appendToStream('s', [...batch, ...events(1)], { expectedRevision: 'any' }),
    );
    expect(error.actual).toBe(0n);
  });

  it('does not count an id cached for another stream', async () => {
    const store = createInMemoryEventStore();
    const batch = events(1);
    await store.appendToStream('a', batch, { expectedRevision: 'any' });
    const result = await store.appendToStream('b', batch, { expectedRevision: 'any' });
    expect(result.nextExpectedRevision).toBe(0n);
  });

  it('offers appendMulti only when built with atomicMultiStreamAppend', async () => {
    const plain = createInMemoryEventStore();
    expect(plain.capabilities).toEqual({ atomicMultiStreamAppend: false, strictIdempotentAppend: false });
    await expect(
      plain.appendMulti([{ stream: 'a', events: events(1), expectedRevision: 'any' }]),
    ).rejects.toBeInstanceOf(UnsupportedOperationError);

    const atomic = createInMemoryEventStore({ atomicMultiStreamAppend: true });
    expect(atomic.capabilities.atomicMultiStreamAppend).toBe(true);
    await atomic.appendToStream('b', events(1), { expectedRevision: 'no_stream' });
    await wrongRevision(
      atomic.appendMulti([
        { stream: 'a', events: events(1), expectedRevision: 'no_stream' },
        { stream: 'b', events: events(1), expectedRevision: 'no_stream' },
      ]),
    );
    expect(await atomic.readStream('a')).toEqual([]);
  });

  it('rejects a multi-stream write that is idempotent for one stream and new for another', async () => {
    const store = createInMemoryEventStore({ atomicMultiStreamAppend: true });
    const keyEvents = events(1);
    await store.appendMulti([{ stream: 'key', events: keyEvents, expectedRevision: 'no_stream' }]);
    const error = await wrongRevision(
      store.appendMulti([
        { stream: 'key', events: keyEvents, expectedRevision: 'no_stream' },
        { stream: 'aggregate', events: events(1), expectedRevision: 'no_stream' },
      ]),
    );
    expect(error.stream).toBe('key');
    expect(await store.readStream('aggregate')).toEqual([]);
  });

  it('closing the store ends its subscriptions cleanly', async () => {
    const store = createInMemoryEventStore();
    const subscription = store.subscribeToAll({ onBatch: async () => undefined, pollIntervalMs: 5 });
    await store.close();
    await expect(subscription.done).resolves.toBeUndefined();
  });
});
