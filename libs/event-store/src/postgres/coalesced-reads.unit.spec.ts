import { afterEach, describe, expect, it, vi } from 'vitest';
import { coalescingReads } from './coalesced-reads.js';

/** A sender that answers each read with its text upper-cased, and records what each call sent. */
const recordingSender = (fails: (reads: readonly string[]) => boolean = () => false) => {
  const sent: { reads: readonly string[]; now: Date | null }[] = [];
  const send = async (reads: readonly string[], now: Date | null): Promise<readonly string[]> => {
    sent.push({ reads, now });
    await Promise.resolve();
    if (fails(reads)) throw new Error(`refused ${reads.join(',')}`);
    return reads.map((read) => read.toUpperCase());
  };
  return { sent, send };
};

/** Lets the current turn of the event loop end, so a pending batch goes out and is answered. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('coalescingReads', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends the reads asked for in one turn as one call, and answers each caller its own, in order', async () => {
    const { sent, send } = recordingSender();
    const read = coalescingReads(send, 64);
    const answers = await Promise.all([
      read(['a', 'b'], null),
      read(['c'], null),
      read(['d', 'e', 'f'], null),
    ]);
    expect(answers).toEqual([['A', 'B'], ['C'], ['D', 'E', 'F']]);
    expect(sent).toEqual([{ reads: ['a', 'b', 'c', 'd', 'e', 'f'], now: null }]);
  });

  it('sends reads asked for in different turns apart', async () => {
    const { sent, send } = recordingSender();
    const read = coalescingReads(send, 64);
    const first = read(['a'], null);
    await nextTurn();
    const second = read(['b'], null);
    expect(await Promise.all([first, second])).toEqual([['A'], ['B']]);
    expect(sent.map((call) => call.reads)).toEqual([['a'], ['b']]);
  });

  it('never mixes reads on different clocks', async () => {
    const { sent, send } = recordingSender();
    const read = coalescingReads(send, 64);
    const [early, late] = [new Date('2026-01-01T00:00:00Z'), new Date('2026-01-02T00:00:00Z')];
    const answers = await Promise.all([
      read(['a'], early),
      read(['b'], new Date(early)),
      read(['c'], late),
      read(['d'], null),
    ]);
    expect(answers).toEqual([['A'], ['B'], ['C'], ['D']]);
    expect(sent).toEqual([
      { reads: ['a', 'b'], now: early },
      { reads: ['c'], now: late },
      { reads: ['d'], now: null },
    ]);
  });

  it('sends at most maxReads reads in one call, and a caller asking for as many alone', async () => {
    const { sent, send } = recordingSender();
    const read = coalescingReads(send, 4);
    const answers = await Promise.all([
      read(['a', 'b', 'c'], null),
      read(['d', 'e'], null),
      read(['f', 'g', 'h', 'i'], null),
      read(['j'], null),
    ]);
    expect(answers).toEqual([['A', 'B', 'C'], ['D', 'E'], ['F', 'G', 'H', 'I'], ['J']]);
    expect(sent.map((call) => call.reads)).toEqual([
      ['a', 'b', 'c'],
      ['f', 'g', 'h', 'i'],
      ['d', 'e', 'j'],
    ]);
  });

  it('after a merged call fails, sends each caller its reads alone: only the caller whose reads fail gets an error', async () => {
    const { sent, send } = recordingSender((reads) => reads.includes('bad'));
    const read = coalescingReads(send, 64);
    const answers = await Promise.allSettled([
      read(['a'], null),
      read(['bad', 'b'], null),
      read(['c'], null),
    ]);
    expect(answers).toEqual([
      { status: 'fulfilled', value: ['A'] },
      { status: 'rejected', reason: new Error('refused bad,b') },
      { status: 'fulfilled', value: ['C'] },
    ]);
    expect(sent.map((call) => call.reads)).toEqual([['a', 'bad', 'b', 'c'], ['a'], ['bad', 'b'], ['c']]);
  });

  it('a caller alone is answered by its own call, and its error is its own', async () => {
    const { sent, send } = recordingSender((reads) => reads.includes('bad'));
    const read = coalescingReads(send, 64);
    await expect(read(['bad'], null)).rejects.toThrow('refused bad');
    expect(sent.map((call) => call.reads)).toEqual([['bad']]);
  });

  it('fails the callers of a sender that throws instead of rejecting, and goes on reading', async () => {
    let throws = true;
    const read = coalescingReads(async (reads: readonly string[]) => reads, 64);
    const throwing = coalescingReads((reads: readonly string[]) => {
      if (throws) throw new Error('thrown');
      return Promise.resolve(reads);
    }, 64);
    await expect(Promise.all([throwing(['a'], null), throwing(['b'], null)])).rejects.toThrow('thrown');
    await expect(throwing(['c'], null)).rejects.toThrow('thrown');
    throws = false;
    expect(await Promise.all([throwing(['d'], null), read(['e'], null)])).toEqual([['d'], ['e']]);
  });

  it('still sends its reads while a test fakes the global timers', async () => {
    vi.useFakeTimers();
    const { send } = recordingSender();
    const read = coalescingReads(send, 64);
    expect(await Promise.all([read(['a'], null), read(['b'], null)])).toEqual([['A'], ['B']]);
  });
});
