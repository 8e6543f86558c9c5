import { describe, expect, it } from 'vitest';
import type { AppendResult, StreamTail } from '@once/event-store';
import type { PlannedWrite, StoredResponse } from '../../key-log/index.js';
import type { StreamSnapshot } from '../command-handler.js';
import type { Decided } from '../planning.js';
import { createReadShortcuts } from './read-shortcuts.js';
import type { UnreadAttempt } from './read-shortcuts.js';

const response: StoredResponse = { status: 201, headers: {}, body: '{}' };
const oneEvent = (stream: string, expectedRevision: 'no_stream' | string): PlannedWrite => ({
  stream,
  expectedRevision,
  eventIds: ['00000000-0000-4000-8000-000000000001'],
  events: [{ id: '00000000-0000-4000-8000-000000000001', type: 'Happened', data: { at: stream } }],
});
const appended = (revision: bigint): AppendResult => ({
  nextExpectedRevision: revision,
  position: { commit: 1n, prepare: revision },
  recordedAt: new Date(0),
});

/** An attempt that writes one event to each stream it decided on, and whose append commits when `commits` says. */
const attempt = (commits: () => boolean) => {
  const seen: ReadonlyMap<string, StreamSnapshot>[] = [];
  const appends: PlannedWrite[][] = [];
  const unread: UnreadAttempt = {
    decide: (snapshots): Decided => {
      seen.push(snapshots);
      const writes = [...snapshots.values()].map((snapshot) =>
        oneEvent(
          snapshot.stream,
          snapshot.revision === 'no_stream' ? 'no_stream' : snapshot.revision.toString(),
        ),
      );
      return { kind: 'accept', writes, response };
    },
    appendGuarded: async (writes) => {
      appends.push([...writes]);
      return commits();
    },
  };
  return { unread, seen, appends };
};

describe('read shortcuts', () => {
  it('decide a first request on streams this process knows nothing of as new, and answer it once committed', async () => {
    const shortcuts = createReadShortcuts({ decideWithoutRead: true });
    const { unread, seen, appends } = attempt(() => true);
    expect(await shortcuts.decideWithoutRead(['a', 'b', 'a'], unread)).toEqual(response);
    expect([...(seen[0]?.values() ?? [])]).toEqual([
      { stream: 'a', events: [], revision: 'no_stream' },
      { stream: 'b', events: [], revision: 'no_stream' },
    ]);
    expect(appends[0]?.map((write) => write.stream)).toEqual(['a', 'b']);
  });

  it('decide on the events an append wrote, and read a stream from where they end', async () => {
    const shortcuts = createReadShortcuts({ decideWithoutRead: true });
    shortcuts.keepWritten([oneEvent('a', 'no_stream')], [appended(0n)]);
    expect(shortcuts.tailRead('a').read.fromRevision).toBe(1n);
    const { unread, seen } = attempt(() => true);
    await shortcuts.decideWithoutRead(['a'], unread);
    expect(seen[0]?.get('a')).toMatchObject({ revision: 0n, events: [{ revision: 0n, data: { at: 'a' } }] });
  });

  it('read first where a stream is kept behind its head, or an append is not known exactly', async () => {
    const shortcuts = createReadShortcuts({ decideWithoutRead: true });
    shortcuts.keepWritten([oneEvent('a', 'no_stream')], [appended(0n)]);
    shortcuts.keepWritten(
      [oneEvent('a', '0')],
      [{ nextExpectedRevision: 1n, position: { commit: 2n, prepare: 2n } }],
    );
    const { unread, seen } = attempt(() => true);
    expect(await shortcuts.decideWithoutRead(['a'], unread)).toBeUndefined();
    expect(seen).toEqual([]);
    const tail: StreamTail = { events: [], head: 1n, retained: false };
    const { read, kept } = shortcuts.tailRead('a');
    expect(read.fromRevision).toBe(1n);
    expect(shortcuts.merge('a', kept, tail)).toBeUndefined(); // revision 1 is not there: read whole
  });

  it('append nothing for a decision that does not write to every stream it was made on', async () => {
    const shortcuts = createReadShortcuts({ decideWithoutRead: true });
    const appends: unknown[] = [];
    const result = await shortcuts.decideWithoutRead(['a', 'b'], {
      decide: () => ({ kind: 'accept', writes: [oneEvent('a', 'no_stream')], response }),
      appendGuarded: async (writes) => appends.push(writes) > 0,
    });
    expect(result).toBeUndefined();
    expect(appends).toEqual([]);
    const rejected = await shortcuts.decideWithoutRead(['c'], {
      decide: () => ({ kind: 'reject', response }),
      appendGuarded: async (writes) => appends.push(writes) > 0,
    });
    expect(rejected).toBeUndefined();
    expect(appends).toEqual([]);
  });

  it('answer nothing for a refused append, and mostly read first once most attempts are refused', async () => {
    const shortcuts = createReadShortcuts({ decideWithoutRead: true });
    const { unread, appends } = attempt(() => false);
    for (let request = 0; request < 200; request++) {
      expect(await shortcuts.decideWithoutRead([`new-${request}`], unread)).toBeUndefined();
    }
    expect(appends.length).toBeGreaterThan(0);
    expect(appends.length).toBeLessThan(20);
  });

  it('never decide without a read when told not to', async () => {
    const shortcuts = createReadShortcuts({ decideWithoutRead: false });
    const { unread, seen } = attempt(() => true);
    expect(await shortcuts.decideWithoutRead(['a'], unread)).toBeUndefined();
    expect(seen).toEqual([]);
  });
});
