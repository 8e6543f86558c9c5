import type { AllStreamResolvedEvent, ResolvedEvent, StreamMetadata } from '@eventstore/db-client';
import {
  EventStoreDBClient,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  jsonEvent,
} from '@eventstore/db-client';
import type {
  AppendResult,
  EventStore,
  EventToAppend,
  ExpectedRevision,
  ReadAllBatch,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  ScavengeReport,
  StreamRetention,
  SubscribeOptions,
  Subscription,
} from '../port/index.js';
import { UnsupportedOperationError, WrongExpectedRevisionError, comparePositions } from '../port/index.js';
import { assertValidAppend } from '../port/append-validation.js';
import { assertValidRetention } from '../retention/index.js';
import {
  matchesFilter,
  toJsonData,
  toRecordedEvent,
  toWrongExpectedRevision,
} from './eventstoredb-mapping.js';
import { createSubscriptionRegistry } from '../subscription/index.js';
import { subscribeToEventStoreDb } from './eventstoredb-subscription.js';
import { startServerScavenge } from './eventstoredb-operations.js';
import { readStreamTailsOf } from './eventstoredb-tail-reads.js';

export interface EventStoreDbEventStoreOptions {
  /** Events scanned per global read when the caller gives no `maxCount`. Default 1,000. */
  readonly readBatchSize?: number;
}

/**
 * An event store over EventStoreDB (`@eventstore/db-client` 6.x). Appends pass the caller's expectation through, so
 * the server's idempotency rules apply as they are (strong for explicit revisions, a recent-id cache for `any`);
 * `appendMulti` is not offered. Global reads and subscriptions skip system events and report `{commit, prepare}`.
 *
 * @param connection a client (left open on `close`) or a connection string (the client is closed on `close`)
 * @param options global read batch size
 * @example
 * const store = createEventStoreDbEventStore('esdb://localhost:2113?tls=false');
 * await store.appendToStream('invoice-1', [{ id: crypto.randomUUID(), type: 'InvoiceIssued', data: {} }], {
 *   expectedRevision: 'no_stream',
 * });
 */
export const createEventStoreDbEventStore = (
  connection: EventStoreDBClient | string,
  options: EventStoreDbEventStoreOptions = {},
): EventStore => {
  const ownsClient = typeof connection === 'string';
  const client =
    typeof connection === 'string' ? EventStoreDBClient.connectionString(connection) : connection;
  const readBatchSize = options.readBatchSize ?? 1_000;
  const subscriptions = createSubscriptionRegistry();

  const appendToStream: EventStore['appendToStream'] = async (
    stream,
    events,
    { expectedRevision, retention },
  ) => {
    assertValidAppend(stream, events, expectedRevision);
    if (retention === undefined) return appendEvents(stream, events, expectedRevision);
    assertValidRetention(retention);
    // The metadata goes first, so no event is ever stored without the retention it was appended with: a crash
    // between the two leaves metadata for a stream with no events (or a retention the stream's earlier events get a
    // little early), which a retry of the same append keeps.
    const written = await writeRetentionFirst(stream, retention, expectedRevision);
    try {
      return await appendEvents(stream, events, expectedRevision);
    } catch (error) {
      if (written !== undefined && error instanceof WrongExpectedRevisionError)
        await restoreRetention(stream, written);
      throw error;
    }
  };

  const appendEvents = async (
    stream: string,
    events: readonly EventToAppend[],
    expectedRevision: ExpectedRevision,
  ): Promise<AppendResult> => {
    try {
      const written = await client.appendToStream(
        stream,
        events.map((event) =>
          jsonEvent({
            id: event.id,
            type: event.type,
            data: toJsonData(event.data),
            metadata: event.metadata ?? {},
          }),
        ),
        { expectedRevision },
      );
      return {
        nextExpectedRevision: written.nextExpectedRevision,
        position: written.position
          ? { commit: written.position.commit, prepare: written.position.prepare }
          : { commit: 0n, prepare: 0n },
      };
    } catch (error) {
      throw toWrongExpectedRevision(error, stream, expectedRevision) ?? error;
    }
  };

  /**
   * Writes the retention as its metastream's next event, and answers that event's revision with the metadata it
   * replaced. For a stream's first write (`no_stream`) only as the metastream's first event: one already there (a
   * retry after a crash between the two writes, a repeat of the whole append, another writer's stream) is left as it
   * is, and nothing is answered.
   */
  const writeRetentionFirst = async (
    stream: string,
    retention: StreamRetention,
    expectedRevision: ExpectedRevision,
  ): Promise<WrittenRetention | undefined> => {
    if (expectedRevision === 'no_stream') {
      try {
        const written = await client.setStreamMetadata(stream, metadataOf(retention), {
          expectedRevision: 'no_stream',
        });
        return { revision: written.nextExpectedRevision, replaced: {} };
      } catch (error) {
        if (error instanceof WrongExpectedVersionError) return undefined;
        throw error;
      }
    }
    const { metadata } = await client.getStreamMetadata(stream);
    const written = await client.setStreamMetadata(stream, metadataOf(retention));
    return { revision: written.nextExpectedRevision, replaced: metadata ?? {} };
  };

  /** A refused append sets no retention: the metadata it replaced comes back, unless other metadata came since. */
  const restoreRetention = async (stream: string, written: WrittenRetention): Promise<void> => {
    await client
      .setStreamMetadata(stream, written.replaced, { expectedRevision: written.revision })
      .catch((error: unknown) => {
        if (!(error instanceof WrongExpectedVersionError)) throw error;
      });
  };

  const appendMulti = async (): Promise<readonly AppendResult[]> => {
    throw new UnsupportedOperationError('appendMulti on EventStoreDB 6.x');
  };

  const readStream = async (
    stream: string,
    readOptions: ReadStreamOptions = {},
  ): Promise<readonly RecordedEvent[]> => {
    if (readOptions.maxCount !== undefined && readOptions.maxCount <= 0) return [];
    const events: RecordedEvent[] = [];
    try {
      const read = client.readStream(stream, {
        direction: readOptions.direction ?? 'forwards',
        fromRevision:
          readOptions.fromRevision ??
          ((readOptions.direction ?? 'forwards') === 'forwards' ? 'start' : 'end'),
        ...(readOptions.maxCount === undefined ? {} : { maxCount: readOptions.maxCount }),
      });
      for await (const resolved of read as AsyncIterable<ResolvedEvent>) {
        const event = toRecordedEvent(resolved);
        if (event) events.push(event);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  };

  const readAll = async (readOptions: ReadAllOptions = {}): Promise<ReadAllBatch> => {
    const maxCount = readOptions.maxCount ?? readBatchSize;
    const after = readOptions.after;
    // A read of $all from a position includes that position: ask for one more and drop what is not after it.
    const requested = maxCount + (after ? 1 : 0);
    const read = client.readAll({
      fromPosition: after ? { commit: after.commit, prepare: after.prepare } : START,
      maxCount: requested,
    });
    const events: RecordedEvent[] = [];
    let received = 0;
    let scanned = 0;
    let checkpoint = after;
    // Read to the end of the call even past `maxCount`: a call left with unread messages never finishes, and the
    // client's dispose waits for every call it started.
    for await (const resolved of read as AsyncIterable<AllStreamResolvedEvent>) {
      received += 1;
      if (scanned >= maxCount) continue;
      const event = toRecordedEvent(resolved);
      if (event === undefined || (after && comparePositions(event.position, after) <= 0)) continue;
      scanned += 1;
      checkpoint = event.position;
      if (matchesFilter(event, readOptions.filter)) events.push(event);
    }
    // Fewer than asked for: the end of the log (counting what the server sent, not what was kept).
    return { events, checkpoint, caughtUp: received < requested };
  };

  const subscribeToAll = (subscribeOptions: SubscribeOptions): Subscription => {
    return subscriptions.track(subscribeToEventStoreDb(client, subscribeOptions));
  };

  const setStreamRetention = async (stream: string, retention: StreamRetention): Promise<void> => {
    assertValidRetention(retention);
    await writeRetention(stream, retention);
  };

  const writeRetention = async (stream: string, retention: StreamRetention): Promise<void> => {
    await client.setStreamMetadata(stream, metadataOf(retention));
  };

  // The server removes expired events in its own scavenge, in the background: this starts one (or finds it running).
  const scavenge = async (): Promise<ScavengeReport> => {
    const { scavengeId } = await startServerScavenge(client);
    return { removedEvents: 0, serverScavengeId: scavengeId };
  };

  const close = async (): Promise<void> => {
    await subscriptions.stopAll();
    if (ownsClient) await client.dispose();
  };

  return {
    capabilities: {
      atomicMultiStreamAppend: false,
      strictIdempotentAppend: false,
      maxAgeFromEachWrite: true,
    },
    appendToStream,
    appendMulti,
    readStream,
    readStreamTails: readStreamTailsOf(client, readStream),
    readAll,
    subscribeToAll,
    setStreamRetention,
    scavenge,
    close,
  };
};

/** The retention an append wrote to its metastream (at `revision`), and the metadata it replaced. */
interface WrittenRetention {
  readonly revision: bigint;
  readonly replaced: StreamMetadata;
}

const metadataOf = (retention: StreamRetention): StreamMetadata =>
  'truncateBefore' in retention
    ? { truncateBefore: Number(retention.truncateBefore) }
    : { maxAge: Math.ceil(retention.maxAgeSeconds) };
