import { randomUUID } from 'node:crypto';
import { EventStoreDBClient, StreamNotFoundError } from '@eventstore/db-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWireEventStoreDb } from '../testing/index.js';
import type { WireEventStoreDb } from '../testing/index.js';
import { createEventStoreDbEventStore } from './eventstoredb-event-store.js';

// Retention on EventStoreDB through the real client and the wire-level test server (whose clock the test moves): a
// stream's $maxAge lands before its first event, whatever call a crash interrupts, and a scavenge started through
// the operations API removes what it expired.

class ProcessDied extends Error {}

let server: WireEventStoreDb;
let client: EventStoreDBClient;
let nowMs = Date.now();
const clock = {
  now: () => new Date(nowMs),
  advance: (milliseconds: number) => {
    nowMs += milliseconds;
  },
};

beforeAll(async () => {
  server = await startWireEventStoreDb({ now: clock.now });
  client = EventStoreDBClient.connectionString(server.connectionString);
});

afterAll(async () => {
  await client.dispose();
  await server.stop();
});

/**
 * The client, with the process dying at its `call`-th write (the metadata and the events are both appends, one to
 * `$$stream`, one to the stream): `before` the write is sent, or `after` the server committed it (the
 * acknowledgement never read).
 */
const dyingAt = (
  call: number,
  when: 'before' | 'after',
): { client: EventStoreDBClient; writes: string[] } => {
  const writes: string[] = [];
  const dying = new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'appendToStream') return Reflect.get(target, property, receiver) as unknown;
      return async (...args: Parameters<EventStoreDBClient['appendToStream']>) => {
        writes.push(args[0]);
        if (writes.length === call && when === 'before') throw new ProcessDied();
        const result = await target.appendToStream(...args);
        if (writes.length === call) throw new ProcessDied();
        return result;
      };
    },
  });
  return { client: dying, writes };
};

const eventsOf = async (stream: string) => {
  try {
    return await client.readStream(stream).toArray();
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    throw error;
  }
};

const maxAgeOf = async (stream: string) => (await client.getStreamMetadata(stream)).metadata?.maxAge;

describe('a new stream with a retention on EventStoreDB', () => {
  it.each([
    [1, 'before'],
    [1, 'after'],
    [2, 'before'],
    [2, 'after'],
  ] as const)(
    'a process that dies at write %i (%s it is sent) never leaves events without $maxAge; the retry sets both',
    async (call, when) => {
      const stream = `kept-${randomUUID()}`;
      const events = [{ id: randomUUID(), type: 'KeyClaimed', data: { n: 1 } }];
      const append = { expectedRevision: 'no_stream' as const, retention: { maxAgeSeconds: 60 } };
      const { client: dying, writes } = dyingAt(call, when);
      await expect(
        createEventStoreDbEventStore(dying).appendToStream(stream, events, append),
      ).rejects.toBeInstanceOf(ProcessDied);
      expect(writes[0]).toBe(`$$${stream}`);
      const stored = await eventsOf(stream);
      if (stored.length > 0) expect(await maxAgeOf(stream)).toBe(60);
      expect(stored.length > 0).toBe(call === 2 && when === 'after');

      const retried = await createEventStoreDbEventStore(client).appendToStream(stream, events, append);
      expect(retried.nextExpectedRevision).toBe(0n);
      expect(await maxAgeOf(stream)).toBe(60);
      expect(await eventsOf(stream)).toHaveLength(1);
      clock.advance(61_000);
      expect(await eventsOf(stream)).toEqual([]);
    },
  );

  it('each event expires its $maxAge after its own write: a stream still written to loses its first events', async () => {
    const store = createEventStoreDbEventStore(client);
    expect(store.capabilities.maxAgeFromEachWrite).toBe(true);
    const stream = `in-use-${randomUUID()}`;
    const [claimed, planned] = [randomUUID(), randomUUID()];
    await store.appendToStream(stream, [{ id: claimed, type: 'KeyClaimed', data: {} }], {
      expectedRevision: 'no_stream',
      retention: { maxAgeSeconds: 60 },
    });
    clock.advance(40_000);
    await store.appendToStream(stream, [{ id: planned, type: 'EffectPlanned', data: {} }], {
      expectedRevision: 0n,
    });
    clock.advance(21_000);
    expect((await store.readStream(stream)).map((event) => event.id)).toEqual([planned]);
  });

  it("a refused first write leaves another writer's stream without the retention it asked for", async () => {
    const stream = `theirs-${randomUUID()}`;
    const store = createEventStoreDbEventStore(client);
    await store.appendToStream(stream, [{ id: randomUUID(), type: 'T', data: {} }], {
      expectedRevision: 'no_stream',
    });
    await expect(
      store.appendToStream(stream, [{ id: randomUUID(), type: 'T', data: {} }], {
        expectedRevision: 'no_stream',
        retention: { maxAgeSeconds: 1 },
      }),
    ).rejects.toMatchObject({ actual: 0n });
    clock.advance(5_000);
    expect(await eventsOf(stream)).toHaveLength(1);
    expect(await maxAgeOf(stream)).toBeUndefined();
  });
});

describe('scavenges on EventStoreDB', () => {
  it('scavenge() starts one through the operations API; it removes what $maxAge expired, $all included', async () => {
    const store = createEventStoreDbEventStore(client);
    const [expiring, kept] = [`scavenged-${randomUUID()}`, `kept-${randomUUID()}`];
    await store.appendToStream(expiring, [{ id: randomUUID(), type: 'T', data: {} }], {
      expectedRevision: 'no_stream',
      retention: { maxAgeSeconds: 30 },
    });
    await store.appendToStream(kept, [{ id: randomUUID(), type: 'T', data: {} }], {
      expectedRevision: 'no_stream',
    });
    clock.advance(31_000);
    const report = await store.scavenge();
    expect(report).toMatchObject({ removedEvents: 0, serverScavengeId: expect.any(String) });
    const streams = new Set((await client.readAll().toArray()).map((resolved) => resolved.event?.streamId));
    expect(streams.has(expiring)).toBe(false);
    expect(streams.has(kept)).toBe(true);
    // The stream's revision outlives its events.
    await expect(
      store.appendToStream(expiring, [{ id: randomUUID(), type: 'T', data: {} }], {
        expectedRevision: 'no_stream',
      }),
    ).rejects.toMatchObject({ actual: 0n });
  });
});
