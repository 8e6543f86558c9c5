import { PassThrough, Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import type { AllStreamResolvedEvent, EventStoreDBClient, Position } from '@eventstore/db-client';
import { StreamNotFoundError, WrongExpectedVersionError } from '@eventstore/db-client';
import { describe, expect, it, vi } from 'vitest';
import type { ReadAllBatch } from '../port/index.js';
import { WrongExpectedRevisionError } from '../port/index.js';
import { createEventStoreDbEventStore } from './eventstoredb-event-store.js';

// A stand-in for the gRPC client, shaped like @eventstore/db-client 6.x, so the adapter's own logic (mapping,
// skipping, batching, checkpoints) is tested without a server. The contract suite covers the real server.

const resolved = (stream: string, type: string, position: bigint, revision = 0n): AllStreamResolvedEvent =>
  ({
    event: {
      streamId: stream,
      id: randomUUID(),
      revision,
      type,
      created: new Date(),
      data: { position: position.toString() },
      metadata: {},
      isJson: true,
      position: { commit: position, prepare: position },
    },
    commitPosition: position,
  }) as unknown as AllStreamResolvedEvent;

interface FakeSubscription extends PassThrough {
  unsubscribe: () => Promise<void>;
}

const fakeClient = (log: AllStreamResolvedEvent[]) => {
  const subscriptions: { stream: FakeSubscription; options: Record<string, unknown> }[] = [];
  const client = {
    appendToStream: vi.fn(async () => {
      throw new WrongExpectedVersionError(undefined, { streamName: 's', expected: 0n, current: 'no_stream' });
    }),
    readStream: vi.fn((stream: string) =>
      Readable.from(
        (async function* () {
          const events = log.filter((entry) => entry.event?.streamId === stream);
          if (events.length === 0) throw new StreamNotFoundError(undefined, stream);
          yield* events;
        })(),
      ),
    ),
    readAll: vi.fn(({ fromPosition, maxCount }: { fromPosition: 'start' | Position; maxCount: number }) =>
      Readable.from(
        log
          .filter(
            (entry) =>
              fromPosition === 'start' || (entry.event?.position.commit ?? 0n) >= fromPosition.commit,
          )
          .slice(0, maxCount),
      ),
    ),
    subscribeToAll: vi.fn((options: Record<string, unknown>) => {
      const stream = new PassThrough({ objectMode: true }) as FakeSubscription;
      stream.unsubscribe = vi.fn(async () => {
        stream.destroy();
      });
      subscriptions.push({ stream, options });
      return stream;
    }),
    dispose: vi.fn(async () => undefined),
  };
  return { client: client as unknown as EventStoreDBClient, fake: client, subscriptions };
};

describe('EventStoreDB adapter logic (fake client)', () => {
  it('an append that carries a retention writes it as metadata before the events', async () => {
    const { client, fake } = fakeClient([]);
    const calls: string[] = [];
    const setStreamMetadata = vi.fn(async (stream: string) => {
      calls.push(`metadata ${stream}`);
      return { success: true, nextExpectedRevision: 0n };
    });
    Object.assign(fake, { setStreamMetadata });
    fake.appendToStream.mockImplementation(async () => {
      calls.push('append');
      return { success: true, nextExpectedRevision: 1n, position: { commit: 7n, prepare: 7n } } as never;
    });
    const store = createEventStoreDbEventStore(client);
    const events = [{ id: randomUUID(), type: 'T', data: {} }];
    const result = await store.appendToStream('key-1', events, {
      expectedRevision: 'no_stream',
      retention: { maxAgeSeconds: 86_400.5 },
    });
    expect(result.nextExpectedRevision).toBe(1n);
    expect(calls).toEqual(['metadata key-1', 'append']);
    // A stream's first write: only as its metastream's first event.
    expect(setStreamMetadata).toHaveBeenLastCalledWith(
      'key-1',
      { maxAge: 86_401 },
      { expectedRevision: 'no_stream' },
    );
    calls.length = 0;
    Object.assign(fake, { getStreamMetadata: vi.fn(async () => ({ streamName: 'key-1' })) });
    await store.appendToStream('key-1', events, { expectedRevision: 1n, retention: { truncateBefore: 1n } });
    expect(calls).toEqual(['metadata key-1', 'append']);
    expect(setStreamMetadata).toHaveBeenLastCalledWith('key-1', { truncateBefore: 1 });
  });

  it('a refused append sets no retention: the metadata it replaced comes back, fenced at the revision it wrote', async () => {
    const { client, fake } = fakeClient([]);
    const written: unknown[] = [];
    const setStreamMetadata = vi.fn(async (...args: unknown[]) => {
      written.push(args);
      return { success: true, nextExpectedRevision: 3n };
    });
    const getStreamMetadata = vi.fn(async () => ({ streamName: 'key-1', metadata: { maxAge: 60 } }));
    Object.assign(fake, { setStreamMetadata, getStreamMetadata });
    const store = createEventStoreDbEventStore(client);
    const events = [{ id: randomUUID(), type: 'T', data: {} }];
    await expect(
      store.appendToStream('key-1', events, { expectedRevision: 0n, retention: { truncateBefore: 1n } }),
    ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    await expect(
      store.appendToStream('key-2', events, {
        expectedRevision: 'no_stream',
        retention: { maxAgeSeconds: 30 },
      }),
    ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(written).toEqual([
      ['key-1', { truncateBefore: 1 }],
      ['key-1', { maxAge: 60 }, { expectedRevision: 3n }],
      ['key-2', { maxAge: 30 }, { expectedRevision: 'no_stream' }],
      ['key-2', {}, { expectedRevision: 3n }],
    ]);
  });

  it("a first write whose metastream already has metadata leaves it as it is (another writer's, or a retry's)", async () => {
    const { client, fake } = fakeClient([]);
    const setStreamMetadata = vi.fn(async () => {
      throw new WrongExpectedVersionError(undefined, {
        streamName: '$$key-1',
        expected: 'no_stream',
        current: 0n,
      });
    });
    Object.assign(fake, { setStreamMetadata });
    fake.appendToStream.mockImplementationOnce(
      async () =>
        ({ success: true, nextExpectedRevision: 0n, position: { commit: 3n, prepare: 3n } }) as never,
    );
    const store = createEventStoreDbEventStore(client);
    const events = [{ id: randomUUID(), type: 'T', data: {} }];
    await store.appendToStream('key-1', events, {
      expectedRevision: 'no_stream',
      retention: { maxAgeSeconds: 60 },
    });
    expect(setStreamMetadata).toHaveBeenCalledTimes(1);
    expect(fake.appendToStream).toHaveBeenCalledTimes(1);
  });

  it("maps a wrong expected version with actual 'no_stream'", async () => {
    const { client } = fakeClient([]);
    const store = createEventStoreDbEventStore(client);
    const error = await store
      .appendToStream('s', [{ id: randomUUID(), type: 'T', data: {} }], { expectedRevision: 0n })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WrongExpectedRevisionError);
    expect(error).toMatchObject({ stream: 's', expected: 0n, actual: 'no_stream' });
  });

  it('reads an absent stream as empty', async () => {
    const { client } = fakeClient([resolved('other', 'T', 1n)]);
    expect(await createEventStoreDbEventStore(client).readStream('absent')).toEqual([]);
  });

  it('global read: drops the position it starts from and system events, moves the checkpoint past both', async () => {
    const log = [
      resolved('a', 'T', 10n),
      resolved('$$a', '$metadata', 20n),
      resolved('b', 'T', 30n),
      resolved('a', 'U', 40n),
    ];
    const { client } = fakeClient(log);
    const store = createEventStoreDbEventStore(client);
    const first = await store.readAll({ maxCount: 2 });
    expect(first.events.map((event) => event.stream)).toEqual(['a']);
    expect(first).toMatchObject({ checkpoint: { commit: 20n, prepare: 20n }, caughtUp: false });
    const second = await store.readAll({
      maxCount: 2,
      after: first.checkpoint as Position,
      filter: { eventTypes: ['U'] },
    });
    expect(second.events.map((event) => event.type)).toEqual(['U']);
    expect(second).toMatchObject({ checkpoint: { commit: 40n, prepare: 40n }, caughtUp: false });
    const third = await store.readAll({ maxCount: 2, after: second.checkpoint as Position });
    expect(third).toMatchObject({ events: [], checkpoint: { commit: 40n, prepare: 40n }, caughtUp: true });
  });

  it('subscription: batches events, turns checkpointReached into an empty batch, skips what is not after the start', async () => {
    const { client, subscriptions } = fakeClient([]);
    const store = createEventStoreDbEventStore(client);
    const batches: ReadAllBatch[] = [];
    let notify: () => void = () => undefined;
    const subscription = store.subscribeToAll({
      after: { commit: 10n, prepare: 10n },
      filter: { streamPrefixes: ['a'] },
      onBatch: async (batch) => {
        batches.push(batch);
        notify();
      },
    });
    const waitFor = (count: number) =>
      new Promise<void>((resolve) => {
        notify = () => batches.length >= count && resolve();
        notify();
      });
    const [{ stream, options }] = subscriptions as [(typeof subscriptions)[number]];
    expect(options['fromPosition']).toEqual({ commit: 10n, prepare: 10n });
    const filter = options['filter'] as {
      prefixes: string[];
      checkpointReached: (s: unknown, p: Position) => void;
    };
    expect(filter.prefixes).toEqual(['a']);

    stream.write(resolved('a', 'T', 10n));
    stream.write(resolved('a', 'T', 11n));
    stream.write(resolved('a', 'T', 12n));
    await waitFor(1);
    filter.checkpointReached(stream, { commit: 50n, prepare: 50n });
    await waitFor(2);
    await subscription.stop();

    const delivered = batches.flatMap((batch) => batch.events.map((event) => event.position.commit));
    expect(delivered).toEqual([11n, 12n]);
    expect(batches.at(-1)).toMatchObject({ events: [], checkpoint: { commit: 50n, prepare: 50n } });
    expect(stream.unsubscribe).toHaveBeenCalled();
  });

  it('subscription: a failing batch handler ends it with that error and unsubscribes', async () => {
    const { client, subscriptions } = fakeClient([]);
    const failure = new Error('handler failed');
    const subscription = createEventStoreDbEventStore(client).subscribeToAll({
      onBatch: async () => {
        throw failure;
      },
    });
    const [{ stream }] = subscriptions as [(typeof subscriptions)[number]];
    stream.write(resolved('a', 'T', 1n));
    await expect(subscription.done).rejects.toBe(failure);
    expect(stream.unsubscribe).toHaveBeenCalled();
  });

  it('close leaves a client it was given open, and stops subscriptions', async () => {
    const { client, fake, subscriptions } = fakeClient([]);
    const store = createEventStoreDbEventStore(client);
    const subscription = store.subscribeToAll({ onBatch: async () => undefined });
    await store.close();
    await expect(subscription.done).resolves.toBeUndefined();
    expect(subscriptions[0]?.stream.unsubscribe).toHaveBeenCalled();
    expect(fake.dispose).not.toHaveBeenCalled();
  });
});
