import { describe, expect, it } from 'vitest';
import { KeptDecisions } from './kept-decisions.js';

const tries = (decisions: KeptDecisions, count: number) =>
  Array.from({ length: count }, () => decisions.shouldTry()).filter(Boolean).length;

describe('KeptDecisions', () => {
  it('tries every request while attempts commit, and never when turned off', () => {
    const decisions = new KeptDecisions(true);
    for (let index = 0; index < 100; index++) decisions.record(index % 10 === 0);
    expect(tries(decisions, 64)).toBe(64);
    expect(tries(new KeptDecisions(false), 64)).toBe(0);
  });

  it('mostly reads first once most attempts are refused, and tries every request again once they commit', () => {
    const decisions = new KeptDecisions(true);
    let refused = 0;
    while (decisions.shouldTry() && refused < 100) {
      decisions.record(true);
      refused += 1;
    }
    expect(refused).toBeLessThan(10);
    expect(tries(decisions, 64)).toBe(4);
    for (let index = 0; index < 64; index++) decisions.record(false);
    expect(tries(decisions, 64)).toBe(64);
  });

  it('probes as rarely as it is told while most attempts are refused', () => {
    const decisions = new KeptDecisions(true, 128);
    for (let index = 0; index < 64; index++) decisions.record(true);
    expect(tries(decisions, 512)).toBe(4);
  });
});
