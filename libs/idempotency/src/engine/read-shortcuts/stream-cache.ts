import type { RecordedEvent, StreamTail, StreamTailRead } from '@once/event-store';
import { dropOldestBeyond, dropOldestWhile } from '../drop-oldest.js';

/** How many aggregate streams an engine keeps the events of, least recently read dropped first (a few at once). */
export const STREAM_CACHE_SIZE = 4096;

/**
 * How many events an engine keeps over all those streams: a kept event costs about a kilobyte of memory, so streams
 * that grow without end (an invoice paid again and again) would otherwise grow the process without end. Past it,
 * the least recently read streams are dropped (a sixteenth of it at once); a stream longer than all of it is not kept.
 */
export const KEPT_EVENTS = 250_000;

/**
 * The events of aggregate streams this process read before, so that the next decision on a stream reads only what
 * was appended since (`EventStore.readStreamTails`) instead of the whole stream: an invoice read whole grew by a
 * payment per request and its rows were an eighth of the api's CPU. Kept events are used only while they provably
 * still stand: the stream has no retention (nothing of it expires or is scavenged) and the kept events followed by
 * the tail are exactly revisions 0 to the head the same statement read. Anything else reads the stream whole again.
 * Another process appending meanwhile is no harm: its events are in the tail. What this process appends is kept
 * too when known exactly, so that the next decision on the stream can be made on the kept events with no read at
 * all: the atomic protocol then guards its append (the stream still at the kept head, still without retention).
 */
export class StreamCache {
  private readonly kept = new Map<string, RecordedEvent[]>();
  /** Kept streams this process wrote past without knowing the write's events exactly: a read catches them up. */
  private readonly behind = new Set<string>();
  /** The events kept, over every stream. */
  private keptEvents = 0;

  constructor(
    private readonly capacity: number = STREAM_CACHE_SIZE,
    private readonly maxEvents: number = KEPT_EVENTS,
  ) {}

  /**
   * Where to read `stream` from, and the kept events below that revision: a copy, since the kept array grows in place
   * when this process writes the stream while the read is out.
   */
  tailRead(stream: string): { readonly read: StreamTailRead; readonly kept: readonly RecordedEvent[] } {
    const kept = this.kept.get(stream)?.slice() ?? [];
    return { read: { stream, fromRevision: BigInt(kept.length) }, kept };
  }

  /**
   * The whole stream from the kept events and a tail read after them, keeping it for next time; undefined when the
   * kept events no longer stand (the caller then reads from revision 0, which always stands).
   */
  merge(
    stream: string,
    kept: readonly RecordedEvent[],
    tail: StreamTail,
  ): readonly RecordedEvent[] | undefined {
    this.forget(stream);
    if (tail.retained || !completes(kept.length, tail)) return kept.length === 0 ? tail.events : undefined;
    const events = [...kept, ...tail.events];
    if (events.length > 0) this.keep(stream, events);
    return events;
  }

  /** The events kept of `stream`, up to its head as far as this process knows; undefined when there are none. */
  current(stream: string): readonly RecordedEvent[] | undefined {
    const kept = this.kept.get(stream);
    return kept === undefined || this.behind.has(stream) ? undefined : kept;
  }

  /** True when this process keeps events of `stream`, up to its head or behind it. */
  knows(stream: string): boolean {
    return this.kept.has(stream);
  }

  /**
   * After this process appended to `stream`: keeps the events it wrote when they are known exactly (as a read would
   * return them) and follow the kept ones or start the stream; otherwise the kept events stay, behind the head, until
   * the next read. The kept array grows in place, so a write costs what it wrote, not the stream (decisions made on it
   * before are done with it by then: a decision reads its snapshots before its append is sent).
   */
  wrote(stream: string, written: readonly RecordedEvent[] | undefined): void {
    const kept = this.kept.get(stream);
    if (kept === undefined) {
      // A stream this write created is all known.
      if (written?.[0]?.revision === 0n) this.keep(stream, [...written]);
      return;
    }
    if (written === undefined || written[0]?.revision !== BigInt(kept.length) || this.behind.has(stream)) {
      this.behind.add(stream);
      return;
    }
    this.forget(stream); // kept again as the most recent
    kept.push(...written);
    this.keep(stream, kept);
  }

  private keep(stream: string, events: RecordedEvent[]): void {
    if (events.length > this.maxEvents) return;
    this.kept.set(stream, events);
    this.keptEvents += events.length;
    const forgotten = (dropped: string, droppedEvents: readonly RecordedEvent[]) =>
      this.forgotten(dropped, droppedEvents);
    dropOldestBeyond(this.kept, this.capacity, forgotten);
    if (this.keptEvents <= this.maxEvents) return;
    const keep = this.maxEvents - Math.floor(this.maxEvents / 16);
    dropOldestWhile(this.kept, () => this.keptEvents > keep, forgotten);
  }

  private forget(stream: string): void {
    const events = this.kept.get(stream);
    if (events === undefined) return;
    this.kept.delete(stream);
    this.forgotten(stream, events);
  }

  /** Accounts for `stream`, just taken out of the kept ones with its `events`. */
  private forgotten(stream: string, events: readonly RecordedEvent[]): void {
    this.keptEvents -= events.length;
    this.behind.delete(stream);
  }
}

/**
 * True when `kept` events (revisions 0 to kept − 1, as they were when kept) followed by the tail are revisions 0 to
 * the tail's head, one each, in order.
 */
const completes = (kept: number, tail: StreamTail): boolean => {
  const total = kept + tail.events.length;
  if (tail.head === undefined) return total === 0;
  if (BigInt(total) !== tail.head + 1n) return false;
  return tail.events.every((event, index) => event.revision === BigInt(kept + index));
};
