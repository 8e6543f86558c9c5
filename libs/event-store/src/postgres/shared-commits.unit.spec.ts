import { describe, expect, it } from 'vitest';
import { sharingCommits } from './shared-commits.js';

/**
 * Senders that answer each append with its text upper-cased and record each call. `leftAlone` appends are answered
 * `undefined` by the shared call (to be sent alone); a shared call including a `fails` append rejects; a call
 * including a `held` append waits for `release`.
 */
const recordingSenders = ({
  leftAlone = [] as readonly string[],
  fails = [] as readonly string[],
  held = [] as readonly string[],
} = {}) => {
  const calls: { readonly together: boolean; readonly appends: readonly string[] }[] = [];
  const releases: (() => void)[] = [];
  const holding = (appends: readonly string[]) =>
    appends.some((append) => held.includes(append))
      ? new Promise<void>((resolve) => releases.push(resolve))
      : Promise.resolve();
  const sendTogether = async (appends: readonly string[]) => {
    calls.push({ together: true, appends });
    await holding(appends);
    if (appends.some((append) => fails.includes(append))) throw new Error('refused');
    return appends.map((append) => (leftAlone.includes(append) ? undefined : append.toUpperCase()));
  };
  const sendAlone = async (append: string) => {
    calls.push({ together: false, appends: [append] });
    await holding([append]);
    return `${append.toUpperCase()} alone`;
  };
  return {
    calls,
    sendTogether,
    sendAlone,
    release: () => releases.splice(0).forEach((resolve) => resolve()),
  };
};

/** Lets the current turn of the event loop end, so a pending batch goes out. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('sharingCommits', () => {
  it('sends the appends of one turn as one call, each answered its own, and a lone append alone', async () => {
    const { calls, sendTogether, sendAlone } = recordingSenders();
    const append = sharingCommits(sendTogether, sendAlone, { maxAppends: 32, waitMicroseconds: 0 });
    expect(await Promise.all([append('a', null), append('b', null), append('c', null)])).toEqual([
      'A',
      'B',
      'C',
    ]);
    expect(await append('d', null)).toBe('D alone');
    expect(calls).toEqual([
      { together: true, appends: ['a', 'b', 'c'] },
      { together: false, appends: ['d'] },
    ]);
  });

  it('sends what the shared call left, and everything of a shared call that failed, alone and in order', async () => {
    const { calls, sendTogether, sendAlone } = recordingSenders({ leftAlone: ['b', 'c'], fails: ['x'] });
    const append = sharingCommits(sendTogether, sendAlone, { maxAppends: 32, waitMicroseconds: 0 });
    expect(await Promise.all([append('a', null), append('b', null), append('c', null)])).toEqual([
      'A',
      'B alone',
      'C alone',
    ]);
    expect(await Promise.all([append('x', null), append('y', null)])).toEqual(['X alone', 'Y alone']);
    expect(
      calls.map(({ together, appends }) => `${together ? 'together' : 'alone'} ${appends.join('')}`),
    ).toEqual(['together abc', 'alone b', 'alone c', 'together xy', 'alone x', 'alone y']);
  });

  it('never mixes clocks, and sends a full batch at once', async () => {
    const { calls, sendTogether, sendAlone } = recordingSenders();
    const append = sharingCommits(sendTogether, sendAlone, { maxAppends: 2, waitMicroseconds: 0 });
    const early = new Date('2026-01-01T00:00:00Z');
    await Promise.all([
      append('a', early),
      append('b', new Date(early)),
      append('c', early),
      append('d', null),
      append('e', null),
    ]);
    expect(calls.map(({ appends }) => appends)).toEqual([['a', 'b'], ['c'], ['d', 'e']]);
  });

  it('with a wait, keeps a batch open past its turn while other appends are in flight', async () => {
    const { calls, sendTogether, sendAlone, release } = recordingSenders({ held: ['a'] });
    // Longer than this test: the batch goes out when nothing else is in flight.
    const append = sharingCommits(sendTogether, sendAlone, { maxAppends: 32, waitMicroseconds: 60_000_000 });
    const first = append('a', null);
    await nextTurn();
    const second = append('b', null);
    await nextTurn();
    await nextTurn();
    const third = append('c', null);
    await nextTurn();
    expect(calls.map(({ appends }) => appends)).toEqual([['a']]);
    release();
    expect(await Promise.all([first, second, third])).toEqual(['A alone', 'B', 'C']);
    expect(calls.map(({ appends }) => appends)).toEqual([['a'], ['b', 'c']]);
  });

  it('with a wait, sends an append at the end of its turn when no other is in flight', async () => {
    const { calls, sendTogether, sendAlone } = recordingSenders();
    const append = sharingCommits(sendTogether, sendAlone, { maxAppends: 32, waitMicroseconds: 60_000_000 });
    expect(await append('a', null)).toBe('A alone');
    expect(calls).toEqual([{ together: false, appends: ['a'] }]);
  });
});
