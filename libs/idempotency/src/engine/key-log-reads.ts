import type {
  EventStore,
  GlobalPosition,
  RecordedEvent,
  StreamRevision,
  StreamTail,
  StreamTailRead,
} from '@once/event-store';
import { foldKeyLog, isKeyLogEvent } from '../key-log/index.js';
import type { KeyLogEvent, KeyState } from '../key-log/index.js';
import type { StreamSnapshot } from './command-handler.js';
import type { Execution } from './execution.js';
import { toSnapshots } from './planning.js';
import type { ReadShortcuts } from './read-shortcuts/index.js';

/** A key stream as read: its state, where to append next, and where it was completed (a replay's token). */
export interface KeyLogRead {
  readonly state: KeyState;
  readonly revision: StreamRevision | undefined;
  readonly completedAt: GlobalPosition | undefined;
  /** When the completion was recorded: the key expires a retention after it. */
  readonly completedRecordedAt: Date | undefined;
}

/** A key stream's events as its log: the folded state, its head, and where and when it was completed. */
export const toKeyLog = (recorded: readonly RecordedEvent[]): KeyLogRead => {
  const events = recorded
    .filter(isKeyLogEvent)
    .map((event) => ({ type: event.type, data: event.data }) as KeyLogEvent);
  // Where the key was completed: the replay's read-your-writes token (see ExecuteOutcome).
  const completion = recorded.findLast((event) => event.type === 'IdempotencyKeyCompleted');
  return {
    state: foldKeyLog(events),
    revision: recorded.at(-1)?.revision,
    completedAt: completion?.position,
    completedRecordedAt: completion?.recordedAt,
  };
};

/** A key no one has claimed: what a key stream with no events reads as. */
export const newKeyLog: KeyLogRead = toKeyLog([]);

/** The reads of the protocols, each one `EventStore.readStreamTails` call (a second one only when kept events went stale). */
export interface KeyLogReads {
  /** A key stream's log. */
  key(keyStream: string): Promise<KeyLogRead>;
  /**
   * An execution's key log, and the aggregates `streams` names while its key stream is new (a first request): a retry
   * needs none of them, and gets no `snapshots` (a released key, claimed again, reads them with `aggregates`).
   */
  keyAndAggregates(
    execution: Execution,
    streams: readonly string[] | undefined,
  ): Promise<{ key: KeyLogRead; snapshots?: ReadonlyMap<string, StreamSnapshot> }>;
  /** The aggregates `streams` names, as snapshots. */
  aggregates(streams: readonly string[]): Promise<ReadonlyMap<string, StreamSnapshot>>;
}

/** How an aggregate is read: from revision 0, unless the shortcuts keep its earlier events. */
const wholeRead = (stream: string) => ({ read: { stream, fromRevision: 0n }, kept: [] as const });

/**
 * The protocols' reads over `store`: the key stream and the aggregates in one call, the aggregates gated by the key
 * stream (`unlessExists`); an aggregate read from where `shortcuts` keep its events, and whole again when those no
 * longer stand.
 */
export const createKeyLogReads = (store: EventStore, shortcuts: ReadShortcuts | undefined): KeyLogReads => {
  const merge = (stream: string, kept: readonly RecordedEvent[], tail: StreamTail) =>
    shortcuts === undefined ? tail.events : shortcuts.merge(stream, kept, tail);

  /** Aggregates whose kept events no longer stand, read whole. */
  const readWhole = async (
    streams: readonly string[],
  ): Promise<ReadonlyMap<string, readonly RecordedEvent[]>> => {
    const tails = await store.readStreamTails(streams.map((stream) => ({ stream, fromRevision: 0n })));
    return new Map(streams.map((stream, index) => [stream, merge(stream, [], tails[index] ?? noTail) ?? []]));
  };

  /** The key stream (when given) and the aggregates, which are left out when the key stream exists. */
  const read = async (keyStream: string | undefined, streams: readonly string[]) => {
    const plans = streams.map((stream) => shortcuts?.tailRead(stream) ?? wholeRead(stream));
    const keyReads: StreamTailRead[] =
      keyStream === undefined ? [] : [{ stream: keyStream, fromRevision: 0n }];
    const tails = await store.readStreamTails([
      ...keyReads,
      ...plans.map((plan) =>
        keyStream === undefined ? plan.read : { ...plan.read, unlessExists: keyStream },
      ),
    ]);
    const key = keyStream === undefined ? undefined : toKeyLog(tails[0]?.events ?? []);
    const aggregateTails = tails.slice(keyReads.length);
    if (aggregateTails.some((tail) => tail.skipped === true)) return { key, aggregates: undefined };
    const aggregates = streams.map((stream, index) => {
      const plan = plans[index];
      return plan === undefined ? [] : merge(stream, plan.kept, aggregateTails[index] ?? noTail);
    });
    const stale = streams.filter((_, index) => aggregates[index] === undefined);
    const whole = stale.length === 0 ? undefined : await readWhole(stale);
    return {
      key,
      aggregates: aggregates.map((events, index) => events ?? whole?.get(streams[index] ?? '') ?? []),
    };
  };

  return {
    key: async (keyStream) => (await read(keyStream, [])).key ?? newKeyLog,
    keyAndAggregates: async (execution, streams) => {
      const unique = streams === undefined ? [] : [...new Set(streams)];
      const { key = newKeyLog, aggregates } = await read(execution.keyStream, unique);
      return streams === undefined || aggregates === undefined
        ? { key }
        : { key, snapshots: toSnapshots(unique, aggregates) };
    },
    aggregates: async (streams) => {
      const unique = [...new Set(streams)];
      const { aggregates = [] } = await read(undefined, unique);
      return toSnapshots(unique, aggregates);
    },
  };
};

const noTail: StreamTail = { events: [], head: undefined, retained: false };
