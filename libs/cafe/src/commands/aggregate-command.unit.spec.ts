import { randomUUID } from 'node:crypto';
import type { Decider, Message } from '@once/domain';
import type { RecordedEvent } from '@once/event-store';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { foldSnapshot } from './aggregate-command.js';

type Added = Message<'Added', { readonly amount: number }>;
type Tally = { readonly total: number; readonly amounts: readonly number[] };

/** A decider that counts its `evolve` calls, copying its state on each as the invoice decider does. */
const countingDecider = () => {
  const calls = { evolve: 0 };
  const decider: Decider<Message<'Add', object>, Added, Tally> = {
    decide: () => [],
    evolve: (state, event) => {
      calls.evolve += 1;
      return { total: state.total + event.data.amount, amounts: [...state.amounts, event.data.amount] };
    },
    initialState: () => ({ total: 0, amounts: [] }),
  };
  return { decider, calls };
};

const added = (revision: number): RecordedEvent =>
  ({
    id: randomUUID(),
    stream: 'tally-1',
    revision: BigInt(revision),
    type: 'Added',
    data: { amount: revision + 1 },
    metadata: {},
    position: { commit: BigInt(revision), prepare: BigInt(revision) },
    recordedAt: new Date(0),
  }) as RecordedEvent;

const snapshotOf = (events: readonly RecordedEvent[]) => ({
  stream: 'tally-1',
  events,
  revision: events.at(-1)?.revision ?? ('no_stream' as const),
});

/** A full garbage collection, through V8's own `gc` (exposed to a fresh context). */
const collectGarbage = (): void => {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
};

describe('foldSnapshot', () => {
  it('folds a stream it folded before from the last event it folded: one evolve per new event', () => {
    const { decider, calls } = countingDecider();
    const events = Array.from({ length: 5 }, (_, revision) => added(revision));
    expect(foldSnapshot(decider, snapshotOf(events))).toEqual({ total: 15, amounts: [1, 2, 3, 4, 5] });
    expect(calls.evolve).toBe(5);

    // The same event objects in a new array, one more at the end: as the engine hands over a stream it keeps.
    const longer = [...events, added(5)];
    expect(foldSnapshot(decider, snapshotOf(longer))).toEqual({ total: 21, amounts: [1, 2, 3, 4, 5, 6] });
    expect(calls.evolve).toBe(6);
    expect(foldSnapshot(decider, snapshotOf(longer))).toEqual({ total: 21, amounts: [1, 2, 3, 4, 5, 6] });
    expect(calls.evolve).toBe(6);
  });

  it('folds whole what it cannot prove is the same prefix: new objects, another first event, another decider', () => {
    const { decider, calls } = countingDecider();
    const events = Array.from({ length: 4 }, (_, revision) => added(revision));
    foldSnapshot(decider, snapshotOf(events));
    expect(calls.evolve).toBe(4);

    // A read of the same stream: equal events, other objects.
    foldSnapshot(decider, snapshotOf(events.map((event) => ({ ...event }))));
    expect(calls.evolve).toBe(8);
    // The last events folded, behind another first event (the stream read again from elsewhere).
    const otherFirst = [{ ...added(0), data: { amount: 100 } }, ...events.slice(1)];
    expect(foldSnapshot(decider, snapshotOf(otherFirst))).toEqual({ total: 109, amounts: [100, 2, 3, 4] });
    expect(calls.evolve).toBe(12);
    // Another decider over the same objects.
    const other = countingDecider();
    foldSnapshot(other.decider, snapshotOf(events));
    expect(other.calls.evolve).toBe(4);
    expect(foldSnapshot(decider, undefined)).toEqual({ total: 0, amounts: [] });
  });

  it('keeps only the last fold of a stream: the states of earlier folds are let go', async () => {
    const { decider, calls } = countingDecider();
    let events = [added(0)];
    const firstState = new WeakRef(foldSnapshot(decider, snapshotOf(events)));
    for (let revision = 1; revision < 50; revision++) {
      events = [...events, added(revision)];
      foldSnapshot(decider, snapshotOf(events));
    }
    expect(calls.evolve).toBe(50);
    // A WeakRef holds its target until the job that made it ends.
    await new Promise((resolve) => setTimeout(resolve, 0));
    collectGarbage();
    expect(firstState.deref()).toBeUndefined();
  });
});
