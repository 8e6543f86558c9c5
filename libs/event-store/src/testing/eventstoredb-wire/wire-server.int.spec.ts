import { randomUUID } from 'node:crypto';
import type { AllStreamResolvedEvent, AppendResult, AppendExpectedRevision } from '@eventstore/db-client';
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  jsonEvent,
  streamNameFilter,
} from '@eventstore/db-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWireEventStoreDb } from './wire-server.js';
import type { WireEventStoreDb } from './wire-server.js';

// The test server's answers, through the real client, against EventStoreDB's documented behaviour: the four
// expected-revision forms, and what a repeated event id does under each. Every case runs through both append
// paths of the client: BatchAppend (its default where the server offers it) and Append (used when a call carries
// credentials).

let server: WireEventStoreDb;
let client: EventStoreDBClient;

beforeAll(async () => {
  server = await startWireEventStoreDb();
  client = EventStoreDBClient.connectionString(server.connectionString);
});

afterAll(async () => {
  await client.dispose();
  await server.stop();
});

const event = (id: string = randomUUID()) => jsonEvent({ id, type: 'Tested', data: { id } });
const stream = () => `wire-${randomUUID()}`;

const paths = [
  ['BatchAppend', {}],
  ['Append', { credentials: { username: 'admin', password: 'changeit' } }],
] as const;

describe.each(paths)('appends through %s', (_path, callOptions) => {
  const append = (
    name: string,
    events: ReturnType<typeof event>[],
    expectedRevision: AppendExpectedRevision,
  ) => client.appendToStream(name, events, { expectedRevision, ...callOptions });
  const wrongVersion = async (promise: Promise<AppendResult>) => {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(WrongExpectedVersionError);
    return error as WrongExpectedVersionError;
  };

  it('no_stream: creates the stream at revision 0, fails once it exists (actual revision reported)', async () => {
    const name = stream();
    expect(await append(name, [event()], 'no_stream')).toMatchObject({
      success: true,
      nextExpectedRevision: 0n,
    });
    const error = await wrongVersion(append(name, [event()], 'no_stream'));
    expect(error).toMatchObject({ streamName: name, expectedVersion: 'no_stream', actualVersion: 0n });
  });

  it("stream_exists: fails on a stream never written (actual 'no_stream'), appends to one that exists", async () => {
    const name = stream();
    const error = await wrongVersion(append(name, [event()], 'stream_exists'));
    expect(error).toMatchObject({ expectedVersion: 'stream_exists', actualVersion: 'no_stream' });
    await append(name, [event()], 'no_stream');
    expect((await append(name, [event()], 'stream_exists')).nextExpectedRevision).toBe(1n);
  });

  it('any: appends whether or not the stream exists', async () => {
    const name = stream();
    expect((await append(name, [event()], 'any')).nextExpectedRevision).toBe(0n);
    expect((await append(name, [event(), event()], 'any')).nextExpectedRevision).toBe(2n);
  });

  it('an explicit revision must be the last one exactly: above or below it fails with the actual revision', async () => {
    const name = stream();
    await append(name, [event(), event()], 'no_stream');
    expect(await wrongVersion(append(name, [event()], 5n))).toMatchObject({
      expectedVersion: 5n,
      actualVersion: 1n,
    });
    expect(await wrongVersion(append(name, [event()], 0n))).toMatchObject({ actualVersion: 1n });
    expect((await append(name, [event()], 1n)).nextExpectedRevision).toBe(2n);
    expect(await wrongVersion(append(stream(), [event()], 0n))).toMatchObject({
      actualVersion: 'no_stream',
    });
  });

  it('repeated ids at the original explicit revision (no_stream included) answer the original write, even after later writes', async () => {
    const name = stream();
    const original = [event(), event()];
    const first = await append(name, original, 'no_stream');
    await append(name, [event()], 1n);
    expect(await append(name, original, 'no_stream')).toEqual(first);
    const second = [event()];
    const atOne = await append(name, second, 2n);
    await append(name, [event()], 3n);
    expect(await append(name, second, 2n)).toEqual(atOne);
    expect((await client.readStream(name).toArray()).length).toBe(5);
  });

  it('repeated ids with any or stream_exists soon after answer the original write', async () => {
    const name = stream();
    const original = [event(), event()];
    const first = await append(name, original, 'any');
    expect(await append(name, original, 'any')).toEqual(first);
    expect(await append(name, original, 'stream_exists')).toEqual(first);
    expect((await client.readStream(name).toArray()).length).toBe(2);
  });

  it('a retry that only partly matches the original fails with a wrong expected version', async () => {
    const name = stream();
    const [a, b] = [event(), event()];
    await append(name, [a, b], 'no_stream');
    expect(await wrongVersion(append(name, [a, event()], 'no_stream'))).toMatchObject({ actualVersion: 1n });
    expect(await wrongVersion(append(name, [a, event()], 'any'))).toMatchObject({ actualVersion: 1n });
  });

  it('repeated ids at the current head are written again (the weak spot EventStoreDB documents)', async () => {
    const name = stream();
    const original = [event()];
    await append(name, original, 'no_stream');
    expect((await append(name, original, 0n)).nextExpectedRevision).toBe(1n);
    expect((await client.readStream(name).toArray()).map((resolved) => resolved.event?.id)).toEqual([
      original[0]?.id,
      original[0]?.id,
    ]);
  });
});

describe('reads', () => {
  it('a stream never written is StreamNotFound; a stream reads forwards and backwards from a revision', async () => {
    const missing = await client
      .readStream(stream())
      .toArray()
      .catch((caught: unknown) => caught);
    expect(missing).toBeInstanceOf(StreamNotFoundError);
    const name = stream();
    await client.appendToStream(name, [event(), event(), event()], { expectedRevision: 'no_stream' });
    const revisions = async (options: Parameters<EventStoreDBClient['readStream']>[1]) =>
      (await client.readStream(name, options).toArray()).map((resolved) => resolved.event?.revision);
    expect(await revisions({ fromRevision: 1n })).toEqual([1n, 2n]);
    expect(await revisions({ direction: BACKWARDS, fromRevision: END, maxCount: 2 })).toEqual([2n, 1n]);
    expect(await revisions({ direction: BACKWARDS, fromRevision: 1n })).toEqual([1n, 0n]);
  });

  it('$all from a position includes the event at that position; backwards from it reads what came before', async () => {
    const name = stream();
    await client.appendToStream(name, [event(), event(), event()], { expectedRevision: 'no_stream' });
    const ours = (await client.readAll({ fromPosition: START }).toArray()).filter(
      (resolved) => resolved.event?.streamId === name,
    );
    const middle = ours[1]?.event?.position;
    if (middle === undefined) throw new Error('no position');
    const from = await client.readAll({ fromPosition: middle, maxCount: 2 }).toArray();
    expect(from.map((resolved) => resolved.event?.revision)).toEqual([1n, 2n]);
    const before = await client
      .readAll({ fromPosition: middle, direction: BACKWARDS, maxCount: 1 })
      .toArray();
    expect(before.map((resolved) => resolved.event?.revision)).toEqual([0n]);
  });

  it('stream metadata: $maxAge hides events older than the age from stream reads', async () => {
    const name = stream();
    await client.appendToStream(name, [event()], { expectedRevision: 'no_stream' });
    await client.setStreamMetadata(name, { maxAge: 1 });
    expect((await client.getStreamMetadata(name)).metadata).toEqual({ maxAge: 1 });
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect(await client.readStream(name).toArray()).toEqual([]);
  });
});

describe('subscriptions to $all', () => {
  it('a filtered subscription sends matching events, checkpoints past what it skipped, then live events', async () => {
    const prefix = `sub-${randomUUID()}-`;
    await client.appendToStream(`${prefix}a`, [event()], { expectedRevision: 'no_stream' });
    for (let index = 0; index < 40; index++)
      await client.appendToStream(stream(), [event()], { expectedRevision: 'no_stream' });
    const checkpoints: { commit: bigint; prepare: bigint }[] = [];
    const received: AllStreamResolvedEvent[] = [];
    let caughtUp = false;
    const subscription = client.subscribeToAll({
      fromPosition: START,
      filter: streamNameFilter({
        prefixes: [prefix],
        checkpointReached: (_subscription, position) => {
          checkpoints.push(position);
        },
      }),
    });
    subscription.on('caughtUp', () => {
      caughtUp = true;
    });
    subscription.on('data', (resolved: AllStreamResolvedEvent) => received.push(resolved));
    await expect.poll(() => caughtUp, { timeout: 5_000 }).toBe(true);
    await client.appendToStream(`${prefix}b`, [event()], { expectedRevision: 'no_stream' });
    await expect.poll(() => received.length, { timeout: 5_000 }).toBe(2);
    await subscription.unsubscribe();
    expect(received.map((resolved) => resolved.event?.streamId)).toEqual([`${prefix}a`, `${prefix}b`]);
    // One every 32 events considered, one on catching up: each past the last event it covers (prepare 0).
    expect(checkpoints.length).toBeGreaterThanOrEqual(2);
    expect(checkpoints.every((checkpoint) => checkpoint.prepare === 0n)).toBe(true);
    const last = received[0]?.event?.position;
    expect(last && checkpoints.some((checkpoint) => checkpoint.commit > last.commit)).toBe(true);
  });
});
