import { describe, expect, it } from 'vitest';
import { WrongExpectedRevisionError } from '@once/event-store';
import { KeyConflicts } from './key-conflicts.js';

const conflict = (actual: bigint | 'no_stream') =>
  new WrongExpectedRevisionError('idempotency-key-probe', 'no_stream', actual);

describe('KeyConflicts', () => {
  it('expects the revision a conflict reported when the read saw no stream', () => {
    const conflicts = new KeyConflicts(3);
    expect(conflicts.retry(conflict(4n), undefined)).toBe(true);
    expect(conflicts.expected(undefined)).toBe(4n);
  });

  it('forgets that revision when the stream is gone again (removed by the scavenger meanwhile)', () => {
    const conflicts = new KeyConflicts(3);
    conflicts.retry(conflict(4n), undefined);
    conflicts.retry(new WrongExpectedRevisionError('idempotency-key-probe', 4n, 'no_stream'), undefined);
    expect(conflicts.expected(undefined)).toBe('no_stream');
  });

  it('prefers what the read saw, and stops once the budget is spent', () => {
    const conflicts = new KeyConflicts(1);
    expect(conflicts.retry(conflict(4n), 2n)).toBe(true);
    expect(conflicts.expected(7n)).toBe(7n);
    expect(conflicts.retry(conflict(4n), 2n)).toBe(false);
  });
});
