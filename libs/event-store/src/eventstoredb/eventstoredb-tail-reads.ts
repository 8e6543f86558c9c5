import type { EventStoreDBClient } from '@eventstore/db-client';
import type {
  ReadStreamOptions,
  RecordedEvent,
  StreamRevision,
  StreamTail,
  StreamTailRead,
} from '../port/index.js';

type ReadStream = (stream: string, options?: ReadStreamOptions) => Promise<readonly RecordedEvent[]>;

const skipped: StreamTail = { events: [], head: undefined, retained: false, skipped: true };

/**
 * `EventStore.readStreamTails` over EventStoreDB, which reads one stream a call: first the reads no other stream
 * gates (with the head of each gating stream they do not cover), then the reads whose `unlessExists` stream has no
 * head, each read's calls in parallel. A caller that reads a key stream with the aggregates it gates so pays for the
 * aggregates only while the key is new, as it would reading the key first.
 *
 * @param client the adapter's client (stream metadata says whether a stream has a retention)
 * @param readStream the adapter's `readStream`
 * @example
 * const readStreamTails = readStreamTailsOf(client, readStream);
 * const [keyLog, invoice] = await readStreamTails([
 *   { stream: keyStream, fromRevision: 0n },
 *   { stream: 'invoice-1', fromRevision: 0n, unlessExists: keyStream },
 * ]);
 */
export const readStreamTailsOf =
  (client: EventStoreDBClient, readStream: ReadStream) =>
  async (reads: readonly StreamTailRead[]): Promise<readonly StreamTail[]> => {
    const headOf = async (stream: string): Promise<StreamRevision | undefined> =>
      (await readStream(stream, { direction: 'backwards', maxCount: 1 }))[0]?.revision;
    const readTail = async (read: StreamTailRead): Promise<StreamTail> => {
      const [events, { metadata }] = await Promise.all([
        readStream(read.stream, { fromRevision: read.fromRevision }),
        client.getStreamMetadata(read.stream),
      ]);
      // Read from revision 0 and found empty, the stream has no event a client can read: no head to look for.
      const head =
        events.at(-1)?.revision ?? (read.fromRevision > 0n ? await headOf(read.stream) : undefined);
      const retained = metadata?.maxAge !== undefined || metadata?.truncateBefore !== undefined;
      return { events, head, retained };
    };

    const ungated = reads.filter((read) => read.unlessExists === undefined);
    const gates = [
      ...new Set(reads.flatMap((read) => (read.unlessExists === undefined ? [] : [read.unlessExists]))),
    ];
    const uncoveredGates = gates.filter((gate) => !ungated.some((read) => read.stream === gate));
    const [firstTails, gateHeads] = await Promise.all([
      Promise.all(ungated.map(readTail)),
      Promise.all(uncoveredGates.map(async (gate) => [gate, await headOf(gate)] as const)),
    ]);
    const heads = new Map<string, StreamRevision | undefined>(gateHeads);
    ungated.forEach((read, index) => heads.set(read.stream, firstTails[index]?.head));
    return Promise.all(
      reads.map((read) => {
        if (read.unlessExists === undefined) return firstTails[ungated.indexOf(read)] ?? skipped;
        return heads.get(read.unlessExists) === undefined ? readTail(read) : skipped;
      }),
    );
  };
