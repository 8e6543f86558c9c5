import type { ExpectedRevision, GlobalPosition, StreamRevision } from '../port/index.js';
import type { RecentEventIds } from './recent-event-ids.js';

/** What EventStoreDB decides for a write before it writes (IndexWriter.CheckCommit). */
export type CommitDecision =
  | { readonly kind: 'write'; readonly current: StreamRevision | -1n }
  | { readonly kind: 'idempotent'; readonly lastRevision: StreamRevision; readonly position: GlobalPosition }
  | { readonly kind: 'wrong-expected-revision'; readonly actual: StreamRevision | 'no_stream' };

/** The stream as the check sees it: its head, and the events still on disk (expired but unscavenged included). */
export interface StreamForCheck {
  readonly stream: string;
  /** Revision of the last event ever written, -1n when the stream has never been written. */
  readonly current: StreamRevision | -1n;
  /** The event stored at a revision, if it has not been scavenged. */
  eventAt(revision: StreamRevision): { readonly id: string; readonly position: GlobalPosition } | undefined;
}

/**
 * EventStoreDB's commit check, rule for rule:
 * - `stream_exists` on a stream never written: wrong revision;
 * - `any` / `stream_exists`: the weak check, against recently written ids only. First id not cached for this
 *   stream: write (a silent duplicate if it was written long ago); all cached: idempotent; first cached but a
 *   later one not: corrupted idempotency, answered as wrong revision;
 * - explicit revision below the head (`no_stream` counts as -1): the strong check, by revision on disk. Every id at
 *   expected+1+i: idempotent with the original result; the first differs: wrong revision; a later one differs or
 *   runs past the head: corrupted idempotency, answered as wrong revision;
 * - explicit revision above the head: wrong revision;
 * - explicit revision equal to the head: write, even when these ids were written before (duplicates).
 */
export const checkCommit = (
  target: StreamForCheck,
  expected: ExpectedRevision,
  eventIds: readonly string[],
  recent: RecentEventIds,
): CommitDecision => {
  const { current } = target;
  const wrong: CommitDecision = {
    kind: 'wrong-expected-revision',
    actual: current < 0n ? 'no_stream' : current,
  };

  if (expected === 'stream_exists' && current < 0n) return wrong;

  if (expected === 'any' || expected === 'stream_exists') {
    let last: { revision: StreamRevision; position: GlobalPosition } | undefined;
    for (const [index, id] of eventIds.entries()) {
      const cached = recent.get(id);
      if (cached === undefined || cached.stream !== target.stream) {
        return index === 0 ? { kind: 'write', current } : wrong;
      }
      last = cached;
    }
    return last === undefined
      ? { kind: 'write', current }
      : { kind: 'idempotent', lastRevision: last.revision, position: last.position };
  }

  const explicit = expected === 'no_stream' ? -1n : expected;
  if (explicit > current) return wrong;
  if (explicit === current) return { kind: 'write', current };

  let revision = explicit;
  let position: GlobalPosition | undefined;
  for (const id of eventIds) {
    revision += 1n;
    const stored = target.eventAt(revision);
    if (stored === undefined || stored.id.toLowerCase() !== id.toLowerCase()) return wrong;
    position = stored.position;
  }
  return position === undefined ? wrong : { kind: 'idempotent', lastRevision: revision, position };
};
