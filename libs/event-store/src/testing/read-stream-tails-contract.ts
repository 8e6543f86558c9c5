import { describe, expect, it } from 'vitest';
import type { EventStore, StreamTailRead } from '../port/index.js';
import { freshStream, someEvents } from './contract-fixtures.js';

/** What `readStreamTails` answered, in short: each tail's revisions, head, retention and whether it was skipped. */
const summarize = async (store: EventStore, reads: readonly StreamTailRead[]) =>
  (await store.readStreamTails(reads)).map((tail) => ({
    revisions: tail.events.map((event) => event.revision),
    head: tail.head,
    retained: tail.retained,
    skipped: tail.skipped ?? false,
  }));

/** Streams of two and of three events, and one with only a retention. */
const writeStreams = async (store: EventStore) => {
  const [two, three, onlyRetention] = [freshStream('tail'), freshStream('tail'), freshStream('tail')];
  await store.appendToStream(two, someEvents(2), { expectedRevision: 'no_stream' });
  await store.appendToStream(three, someEvents(3), { expectedRevision: 'no_stream' });
  await store.setStreamRetention(onlyRetention, { maxAgeSeconds: 3600 });
  return { two, three, onlyRetention };
};

/** The contract of `EventStore.readStreamTails`, every adapter's one read of several streams. */
export const describeReadStreamTails = (store: () => EventStore): void => {
  describe('readStreamTails', () => {
    it('reads each stream from its own revision, with its head and whether it has a retention', async () => {
      const { two, three, onlyRetention } = await writeStreams(store());
      const truncated = freshStream('tail');
      await store().appendToStream(truncated, someEvents(3), {
        expectedRevision: 'no_stream',
        retention: { truncateBefore: 1n },
      });
      const absent = freshStream('tail');
      expect(
        await summarize(store(), [
          { stream: three, fromRevision: 1n },
          { stream: truncated, fromRevision: 0n },
          { stream: two, fromRevision: 2n },
          { stream: onlyRetention, fromRevision: 0n },
          { stream: absent, fromRevision: 0n },
          { stream: two, fromRevision: 0n },
        ]),
      ).toEqual([
        { revisions: [1n, 2n], head: 2n, retained: false, skipped: false },
        { revisions: [1n, 2n], head: 2n, retained: true, skipped: false },
        { revisions: [], head: 1n, retained: false, skipped: false },
        { revisions: [], head: undefined, retained: true, skipped: false },
        { revisions: [], head: undefined, retained: false, skipped: false },
        { revisions: [0n, 1n], head: 1n, retained: false, skipped: false },
      ]);
      const [tail] = await store().readStreamTails([{ stream: three, fromRevision: 1n }]);
      expect(tail?.events).toEqual((await store().readStream(three)).slice(1));
      expect(await store().readStreamTails([])).toEqual([]);
    });

    it('leaves out a read whose unlessExists stream has a head, and says so', async () => {
      const { two, three, onlyRetention } = await writeStreams(store());
      const never = freshStream('tail');
      expect(
        await summarize(store(), [
          { stream: two, fromRevision: 0n, unlessExists: three },
          { stream: two, fromRevision: 1n, unlessExists: onlyRetention },
          { stream: two, fromRevision: 0n, unlessExists: never },
          { stream: never, fromRevision: 0n, unlessExists: two },
          { stream: three, fromRevision: 0n },
          { stream: two, fromRevision: 0n, unlessExists: three },
        ]),
      ).toEqual([
        { revisions: [], head: undefined, retained: false, skipped: true },
        { revisions: [1n], head: 1n, retained: false, skipped: false },
        { revisions: [0n, 1n], head: 1n, retained: false, skipped: false },
        { revisions: [], head: undefined, retained: false, skipped: true },
        { revisions: [0n, 1n, 2n], head: 2n, retained: false, skipped: false },
        { revisions: [], head: undefined, retained: false, skipped: true },
      ]);
    });
  });
};
