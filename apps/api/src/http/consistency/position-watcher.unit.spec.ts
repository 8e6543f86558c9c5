import { describe, expect, it } from 'vitest';
import { createPositionWatcher } from './position-watcher.js';

const position = (n: number): string => `${String(n).padStart(20, '0')}:${String(n).padStart(20, '0')}`;

describe('the position watcher', () => {
  it('serves every waiting read with one checkpoint read per tick, and settles each as its projection gets there', async () => {
    let reads = 0;
    const checkpoints = new Map<string, string>([['invoices', position(1)]]);
    const watcher = createPositionWatcher({
      pollMs: 1,
      readCheckpoints: async () => {
        reads++;
        return new Map(checkpoints);
      },
    });
    const waits = Array.from({ length: 50 }, (_, index) =>
      watcher.waitFor(index % 2 ? 'invoices' : 'orders', position(5), { timeoutMs: 60_000 }),
    );
    expect(watcher.waiting()).toBe(50);
    while (reads < 3) await new Promise((resolve) => setTimeout(resolve, 1));
    const readsBefore = reads;
    checkpoints.set('invoices', position(5));
    const invoiceWaits = await Promise.all(waits.filter((_, index) => index % 2));
    expect(invoiceWaits.every((outcome) => outcome === 'reached')).toBe(true);
    expect(watcher.waiting()).toBe(25);
    // One read per tick for all fifty, not one per waiting read.
    expect(reads - readsBefore).toBeLessThan(25);
    checkpoints.set('orders', position(9));
    expect(new Set(await Promise.all(waits))).toEqual(new Set(['reached']));
    watcher.close();
  });

  it('refuses reads beyond the cap, ends a wait when its client leaves, and times out', async () => {
    const watcher = createPositionWatcher({
      pollMs: 1,
      maxWaiters: 2,
      readCheckpoints: async () => new Map(),
    });
    const left = new AbortController();
    const abandoned = watcher.waitFor('invoices', position(1), { timeoutMs: 60_000, signal: left.signal });
    const timedOut = watcher.waitFor('invoices', position(1), { timeoutMs: 0 });
    expect(watcher.waitFor('invoices', position(1), { timeoutMs: 60_000 })).toBeUndefined();
    left.abort();
    expect(await abandoned).toBe('abandoned');
    expect(await timedOut).toBe('timed-out');
    expect(watcher.waiting()).toBe(0);
    expect(watcher.waitFor('invoices', position(1), { timeoutMs: 0 })).toBeDefined();
    watcher.close();
  });
});
