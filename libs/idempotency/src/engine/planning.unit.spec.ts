import type { RecordedEvent } from '@once/event-store';
import { describe, expect, it } from 'vitest';
import type { PlannedWrite } from '../key-log/index.js';
import { recordedBefore, toSnapshots } from './planning.js';

const derived = '6f1c2a0e-8b7d-5c3e-9a41-0d2e4f6a8b1c';

const eventWithId = (id: string, revision: number): RecordedEvent => ({
  id,
  stream: 'invoice-1',
  revision: BigInt(revision),
  type: 'PaymentRecorded',
  data: {},
  metadata: {},
  position: { commit: 1n, prepare: BigInt(revision) },
  recordedAt: new Date(0),
});

const write: PlannedWrite = {
  stream: 'invoice-1',
  expectedRevision: '2',
  eventIds: [derived],
  events: [{ id: derived, type: 'PaymentRecorded', data: {} }],
};

const streamOf = (...ids: string[]) =>
  toSnapshots(['invoice-1'], [ids.map((id, revision) => eventWithId(id, revision))]);

describe('recordedBefore', () => {
  it('finds a write whose first id is already in its stream, in any case', () => {
    const others = ['0b7e5a52-1c3d-4e6f-8a9b-0c1d2e3f4a5b', '6f1c2a0e-8b7d-5c3e-9a41-0d2e4f6a8b1d'];
    expect(recordedBefore([write], streamOf(...others, derived))).toBe('invoice-1');
    expect(recordedBefore([write], streamOf(derived.toUpperCase(), ...others))).toBe('invoice-1');
    expect(recordedBefore([write], streamOf(...others))).toBeUndefined();
    expect(recordedBefore([write], streamOf(`${derived}0`, derived.slice(1)))).toBeUndefined();
  });

  it('looks a kept stream up as it grows, never past the end of the events it is given', () => {
    const others = ['0b7e5a52-1c3d-4e6f-8a9b-0c1d2e3f4a5b', '6f1c2a0e-8b7d-5c3e-9a41-0d2e4f6a8b1d'];
    const kept = others.map((id, revision) => eventWithId(id, revision));
    const snapshot = (events: readonly RecordedEvent[]) => toSnapshots(['invoice-1'], [events]);
    // Seen once (scanned), then again as the same objects (looked up): the same answers each time.
    expect(recordedBefore([write], snapshot(kept))).toBeUndefined();
    expect(recordedBefore([write], snapshot(kept))).toBeUndefined();
    const grown = [...kept, eventWithId(derived.toUpperCase(), 2)];
    expect(recordedBefore([write], snapshot(grown))).toBe('invoice-1');
    // A decision still on the shorter view (made before the append) does not see the event past its end.
    expect(recordedBefore([write], snapshot(kept))).toBeUndefined();
    // Other objects at the same places are another stream's view: looked at afresh.
    const reread = [kept[0] as RecordedEvent, eventWithId(derived, 1)];
    expect(recordedBefore([write], snapshot(reread))).toBe('invoice-1');
    expect(recordedBefore([write], snapshot(grown.slice(0, 2)))).toBeUndefined();
  });
});
