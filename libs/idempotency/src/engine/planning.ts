import type { RecordedEvent } from '@once/event-store';
import { deriveId } from '../ids/index.js';
import type { PlannedWrite, StoredResponse } from '../key-log/index.js';
import type { CommandContext, DecideCommandHandler, StreamSnapshot, StreamWrite } from './command-handler.js';
import type { ExecuteOutcome } from './execute-outcome.js';
import type { Execution } from './execution.js';
import { toStoredResponse } from './stored-response.js';

/** What came of a decision made before any key-log write: the events to plan, or an outcome to answer at once. */
export type Decided =
  | { readonly kind: 'accept'; readonly writes: PlannedWrite[]; readonly response: StoredResponse }
  | { readonly kind: 'reject'; readonly response: StoredResponse }
  | { readonly kind: 'released'; readonly outcome: ExecuteOutcome }
  | { readonly kind: 'expired'; readonly outcome: ExecuteOutcome & { readonly kind: 'expired' } };

/** The streams a handler decides on, as snapshots: their events (in the order given) and where to append next. */
export const toSnapshots = (
  streams: readonly string[],
  read: readonly (readonly RecordedEvent[] | undefined)[],
): ReadonlyMap<string, StreamSnapshot> =>
  new Map(
    streams.map((stream, index) => {
      const events = read[index] ?? [];
      const last = events.at(-1);
      return [
        stream,
        { stream, events, revision: last === undefined ? 'no_stream' : last.revision },
      ] as const;
    }),
  );

/**
 * A decision's writes, planned: grouped by stream, each event with an ID derived from the key (`idPrefix` names the
 * effect), expected at the revision its stream was read at.
 */
export const planWrites = (
  execution: Execution,
  idPrefix: string,
  writes: readonly StreamWrite[],
  snapshots: ReadonlyMap<string, StreamSnapshot>,
): PlannedWrite[] => {
  const { scope, key } = execution.input;
  const byStream = new Map<string, StreamWrite['events'][number][]>();
  for (const write of writes) {
    if (write.events.length === 0) continue;
    byStream.set(write.stream, [...(byStream.get(write.stream) ?? []), ...write.events]);
  }
  return [...byStream].map(([stream, events]) => {
    const snapshot = snapshots.get(stream);
    if (snapshot === undefined) {
      throw new Error(`the handler writes to ${stream} without reading it first (list it in streams)`);
    }
    const planned = events.map((event, index) => ({
      id: deriveId(scope, key, `${idPrefix}${stream}`, index),
      type: event.type,
      data: event.data,
      ...(event.metadata === undefined ? {} : { metadata: event.metadata }),
    }));
    return {
      stream,
      expectedRevision: snapshot.revision === 'no_stream' ? 'no_stream' : snapshot.revision.toString(),
      eventIds: planned.map((event) => event.id),
      events: planned,
    };
  });
};

/**
 * The stream of a planned write whose events are already in it, as read: IDs derive from the key, the stream and the
 * event's place, so they are there only when this key's effect was recorded before, in a life of the key whose log
 * has since expired (a key in flight never expires, and a live log is answered from before anything is decided).
 * Appending them again would record the effect twice (EventStoreDB, at the head) or never be accepted (PostgreSQL).
 * A write's first ID stands for all of them: every life of the key that wrote to the stream wrote that one. A stream
 * seen for the first time is scanned in place (`sameId`, allocating nothing); a stream the engine keeps comes back
 * as the same event objects, and from its second decision on its ids are looked up (`placesOf`), not scanned, so a
 * decision does not cost more as its stream grows.
 */
export const recordedBefore = (
  writes: readonly PlannedWrite[],
  snapshots: ReadonlyMap<string, StreamSnapshot>,
): string | undefined => {
  for (const write of writes) {
    const first = write.eventIds[0]?.toLowerCase();
    if (first === undefined) continue;
    const events = snapshots.get(write.stream)?.events ?? [];
    const places = placesOf(events);
    const recorded =
      places === undefined
        ? events.some((event) => sameId(event.id, first))
        : (places.get(first) ?? events.length) < events.length;
    if (recorded) return write.stream;
  }
  return undefined;
};

/** A stream's events as last seen (the longest view of them), and where each of their ids first sits. */
interface SeenIds {
  events: readonly RecordedEvent[];
  /** Each lower-cased id's first place among `events[0 … indexed − 1]`; none until the stream is seen again. */
  places: Map<string, number> | undefined;
  indexed: number;
}

/** What decisions saw of each stream, by the stream's first event object (gone with the events). */
const seenIds = new WeakMap<RecordedEvent, SeenIds>();

/**
 * Where each id of `events` first sits, when these events were seen before (the same objects at the same places, so
 * the same stream as kept: its events are in revision order, one object each); undefined the first time.
 */
const placesOf = (events: readonly RecordedEvent[]): ReadonlyMap<string, number> | undefined => {
  const [first] = events;
  if (first === undefined) return undefined;
  const seen = seenIds.get(first);
  const shared = seen === undefined ? 0 : Math.min(seen.events.length, events.length);
  if (seen === undefined || seen.events[shared - 1] !== events[shared - 1]) {
    seenIds.set(first, { events, places: undefined, indexed: 0 });
    return undefined;
  }
  if (events.length > seen.events.length) seen.events = events;
  seen.places ??= new Map();
  for (; seen.indexed < seen.events.length; seen.indexed++) {
    const id = (seen.events[seen.indexed] as RecordedEvent).id.toLowerCase();
    if (!seen.places.has(id)) seen.places.set(id, seen.indexed);
  }
  return seen.places;
};

/** True when `id` is `lowerCased` in any case (ASCII letters, as in a UUID); stops at the first that differs. */
const sameId = (id: string, lowerCased: string): boolean => {
  if (id.length !== lowerCased.length) return false;
  for (let index = 0; index < id.length; index++) {
    const code = id.charCodeAt(index);
    const lower = code >= 65 && code <= 90 ? code + 32 : code;
    if (lower !== lowerCased.charCodeAt(index)) return false;
  }
  return true;
};

/**
 * A decide handler's decision, planned: the events with their IDs and the response as it will be stored. A handler
 * that throws, or answers a 5xx, releases nothing yet (nothing was written): the outcome says so, and so does a
 * decision whose events are recorded already (`recordedBefore`).
 */
export const decideAndPlan = (
  allowList: readonly string[],
  execution: Execution,
  handler: DecideCommandHandler,
  context: CommandContext,
  snapshots: ReadonlyMap<string, StreamSnapshot>,
): Decided => {
  let decision;
  let writes: PlannedWrite[];
  try {
    decision = handler.decide(context, snapshots);
    writes = decision.kind === 'accept' ? planWrites(execution, '', decision.writes, snapshots) : [];
  } catch (error) {
    return { kind: 'released', outcome: { kind: 'released', reason: 'handler-error', error } };
  }
  const response = toStoredResponse(decision.response, allowList);
  if (response.status >= 500) {
    return { kind: 'released', outcome: { kind: 'released', reason: 'server-error-response', response } };
  }
  if (decision.kind !== 'accept') return { kind: 'reject', response };
  const stream = recordedBefore(writes, snapshots);
  if (stream !== undefined) return { kind: 'expired', outcome: { kind: 'expired', stream } };
  return { kind: 'accept', writes, response };
};
