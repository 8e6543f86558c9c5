import { describe, expect, it } from 'vitest';
import type { RecordedEvent, StreamTail } from '@once/event-store';
import { StreamCache } from './stream-cache.js';

const event = (stream: string, revision: number): RecordedEvent => ({
  id: `00000000-0000-4000-8000-${revision.toString().padStart(12, '0')}`,
  stream,
  revision: BigInt(revision),
  type: 'Happened',
  data: { revision },
  metadata: {},
  position: { commit: 1n, prepare: BigInt(revision) },
  recordedAt: new Date(0),
});
const events = (stream: string, from: number, to: number) =>
  Array.from({ length: to - from }, (_, index) => event(stream, from + index));
const tail = (stream: string, from: number, to: number, retained = false): StreamTail => ({
  events: events(stream, from, to),
  head: to === 0 ? undefined : BigInt(to - 1),
  retained,
});

describe('StreamCache', () => {
  it('keeps what this process wrote when it follows the kept events, and is behind until a read otherwise', () => {
    const cache = new StreamCache();
    expect(cache.current('s')).toBeUndefined();
    cache.wrote('s', events('s', 0, 1)); // created by this write: all of it is known
    expect(cache.current('s')).toEqual(events('s', 0, 1));
    cache.wrote('s', events('s', 1, 2));
    expect(cache.current('s')).toEqual(events('s', 0, 2));
    cache.wrote('s', undefined); // written, but not known exactly
    expect(cache.current('s')).toBeUndefined();
    cache.wrote('s', events('s', 3, 4)); // still behind: revision 2 is unknown here
    expect(cache.current('s')).toBeUndefined();
    const read = cache.tailRead('s');
    expect(read.read.fromRevision).toBe(2n);
    cache.merge('s', read.kept, tail('s', 2, 4));
    expect(cache.current('s')).toEqual(events('s', 0, 4));
    cache.wrote('other', events('other', 1, 2)); // not kept, and not its start: nothing to keep
    expect(cache.current('other')).toBeUndefined();
  });

  it('a tail read out while this process writes the stream merges what it started from, not the grown stream', () => {
    const cache = new StreamCache();
    cache.wrote('s', events('s', 0, 2));
    const read = cache.tailRead('s');
    cache.wrote('s', events('s', 2, 3)); // kept in place while the read is out
    expect(cache.current('s')).toEqual(events('s', 0, 3));
    expect(read.kept).toEqual(events('s', 0, 2));
    // The read, sent from revision 2, finds the write: the merge stands, with no read from revision 0.
    expect(cache.merge('s', read.kept, tail('s', 2, 3))).toEqual(events('s', 0, 3));
    expect(cache.tailRead('s').read.fromRevision).toBe(3n);
  });

  it('reads a stream whole once, then only what was appended since', () => {
    const cache = new StreamCache();
    const first = cache.tailRead('s');
    expect(first.read).toEqual({ stream: 's', fromRevision: 0n });
    expect(cache.merge('s', first.kept, tail('s', 0, 3))).toEqual(events('s', 0, 3));
    const second = cache.tailRead('s');
    expect(second.read.fromRevision).toBe(3n);
    expect(cache.merge('s', second.kept, tail('s', 3, 5))).toEqual(events('s', 0, 5));
    expect(cache.tailRead('s').read.fromRevision).toBe(5n);
  });

  it('keeps nothing of a stream with a retention, and asks for a whole read when kept events no longer stand', () => {
    const cache = new StreamCache();
    const kept = cache.tailRead('s');
    cache.merge('s', kept.kept, tail('s', 0, 2));
    const next = cache.tailRead('s');
    // A retention set since: the kept events may be expired now.
    expect(cache.merge('s', next.kept, { ...tail('s', 2, 3), retained: true })).toBeUndefined();
    expect(cache.tailRead('s').read.fromRevision).toBe(0n);
    // Read whole, a stream with a retention is answered as read and not kept.
    const retained = { stream: 's', events: events('s', 1, 3), head: 2n, retained: true };
    expect(cache.merge('s', [], retained)).toEqual(retained.events);
    expect(cache.tailRead('s').read.fromRevision).toBe(0n);
  });

  it('asks for a whole read when the tail does not continue the kept events up to the head', () => {
    const cache = new StreamCache();
    cache.merge('s', [], tail('s', 0, 2));
    const { kept } = cache.tailRead('s');
    expect(cache.merge('s', kept, { events: [], head: 4n, retained: false })).toBeUndefined();
    cache.merge('s', [], tail('s', 0, 2));
    expect(
      cache.merge('s', cache.tailRead('s').kept, {
        events: [],
        head: undefined,
        retained: false,
      }),
    ).toBe(undefined);
    cache.merge('s', [], tail('s', 0, 2));
    expect(cache.merge('s', cache.tailRead('s').kept, tail('s', 3, 4))).toBeUndefined();
  });

  it('forgets the least recently read stream beyond its capacity', () => {
    const cache = new StreamCache(2);
    for (const stream of ['a', 'b']) cache.merge(stream, [], tail(stream, 0, 1));
    cache.merge('a', cache.tailRead('a').kept, tail('a', 1, 1 + 1));
    cache.merge('c', [], tail('c', 0, 1));
    expect(cache.tailRead('b').read.fromRevision).toBe(0n);
    expect(cache.tailRead('a').read.fromRevision).toBe(2n);
    expect(cache.tailRead('c').read.fromRevision).toBe(1n);
  });

  it('keeps at most its budget of events over every stream, the least recently read streams dropped first', () => {
    const cache = new StreamCache(100, 32);
    for (const stream of ['a', 'b', 'c']) cache.merge(stream, [], tail(stream, 0, 10));
    cache.merge('a', cache.tailRead('a').kept, tail('a', 10, 11)); // a read last, now 11 events: 31 kept
    expect(cache.knows('b')).toBe(true);
    cache.wrote('c', events('c', 10, 12)); // 33 events: b, the least recently read, goes
    expect(cache.knows('b')).toBe(false);
    expect(cache.current('a')).toHaveLength(11);
    expect(cache.current('c')).toHaveLength(12);
    expect(cache.tailRead('b').read.fromRevision).toBe(0n);
  });

  it('drops a sixteenth of its budget at once, and forgets whether a dropped stream was behind', () => {
    const cache = new StreamCache(100, 64);
    const streams = Array.from({ length: 16 }, (_, index) => `s${String(index)}`);
    for (const stream of streams) cache.merge(stream, [], tail(stream, 0, 4)); // 64 events
    cache.wrote('s0', undefined); // behind its head
    cache.merge('x', [], tail('x', 0, 1)); // 65: s0 and s1 go (down to 60 at most), not s0 alone
    expect(['s0', 's1', 's2', 'x'].map((stream) => cache.knows(stream))).toEqual([false, false, true, true]);
    cache.wrote('s0', events('s0', 0, 1)); // as if this write created it: kept, up to its head
    expect(cache.current('s0')).toEqual(events('s0', 0, 1));
  });

  it('does not keep a stream longer than its whole budget, and keeps nothing at a budget of 0', () => {
    const small = new StreamCache(100, 4);
    expect(small.merge('long', [], tail('long', 0, 5))).toEqual(events('long', 0, 5));
    expect(small.knows('long')).toBe(false);
    small.merge('short', [], tail('short', 0, 4));
    expect(small.current('short')).toHaveLength(4);
    const none = new StreamCache(100, 0);
    none.merge('s', [], tail('s', 0, 1));
    none.wrote('t', events('t', 0, 1));
    expect([none.knows('s'), none.knows('t')]).toEqual([false, false]);
  });
});
