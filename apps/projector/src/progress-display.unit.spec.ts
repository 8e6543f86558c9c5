import { describe, expect, it } from 'vitest';
import type { RebuildProgress } from '@once/projections';
import { createProgressDisplay } from './progress-display.js';

const sample = (
  events: number,
  fraction: number | undefined,
  etaSeconds: number | undefined,
): RebuildProgress => ({
  label: 'invoices v2',
  events,
  eventsPerSecond: 12_345.6,
  checkpoint: { commit: 1n, prepare: BigInt(events) },
  fraction,
  etaSeconds,
});

const fakeStream = (isTTY: boolean) => {
  const written: string[] = [];
  const stream = {
    isTTY,
    columns: 120,
    write: (text: string) => written.push(text),
  } as unknown as NodeJS.WriteStream;
  return { stream, written };
};

describe('progress display', () => {
  it('redraws one bar in place on a terminal, with events/s and ETA', () => {
    const { stream, written } = fakeStream(true);
    const display = createProgressDisplay(stream);
    display.update(sample(1000, 0.25, 75));
    display.update(sample(4000, 1, 0));
    display.finish();
    expect(written[0]).toMatch(/^\r.*invoices v2 .*█.*░.* 25% .*1,000 events 12,346 events\/s ETA 01:15/);
    expect(written[1]).toMatch(/^\r.*100% .*ETA 00:00/);
    expect(written.at(-1)).toBe('\n');
  });

  it('prints plain lines at most once per interval elsewhere, and the end once', () => {
    const { stream, written } = fakeStream(false);
    let now = 0;
    const display = createProgressDisplay(stream, { lineIntervalMs: 1000, now: () => now });
    display.update(sample(10, undefined, undefined));
    now = 500;
    display.update(sample(20, 0.5, 1));
    now = 1600;
    display.update(sample(30, 0.6, 1));
    display.update(sample(40, 1, 0));
    display.update(sample(40, 1, 0));
    display.finish();
    expect(written).toEqual([
      'invoices v2: 10 events, ?, 12,346 events/s, ETA --:--\n',
      'invoices v2: 30 events, 60.0%, 12,346 events/s, ETA 00:01\n',
      'invoices v2: 40 events, 100.0%, 12,346 events/s, ETA 00:00\n',
    ]);
  });
});
