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
 * A write's first ID stands for all of them: every life of the key that wrote to the stream wrote that one. The scan
 * runs over every event of the stream on every decision, so it compares in place (`sameId`) and allocates nothing.
 */
export const recordedBefore = (
  writes: readonly PlannedWrite[],
  snapshots: ReadonlyMap<string, StreamSnapshot>,
): string | undefined => {
  for (const write of writes) {
    const first = write.eventIds[0]?.toLowerCase();
    const events = snapshots.get(write.stream)?.events ?? [];
    if (first !== undefined && events.some((event) => sameId(event.id, first))) return write.stream;
  }
  return undefined;
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
