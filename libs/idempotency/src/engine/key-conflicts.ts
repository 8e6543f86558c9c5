import { WrongExpectedRevisionError } from '@once/event-store';
import type { ExpectedRevision, StreamRevision } from '@once/event-store';

/** True for the conflict of a fenced append. */
export const isConflict = (error: unknown): error is WrongExpectedRevisionError =>
  error instanceof WrongExpectedRevisionError;

/** A planned write's expected revision as the store takes it. */
export const toExpected = (revision: 'no_stream' | string): ExpectedRevision =>
  revision === 'no_stream' ? 'no_stream' : BigInt(revision);

/** Conflicts on the key stream within one execution: a budget, and the revision the last conflict reported. */
export class KeyConflicts {
  private count = 0;
  hint: StreamRevision | undefined;

  constructor(private readonly max: number) {}

  /**
   * Counts a conflict; false once the budget is spent. When the read saw no stream, learns the actual revision, or
   * forgets an old one when the stream is gone again (the scavenger removed an expired key stream meanwhile).
   */
  retry(error: WrongExpectedRevisionError, readRevision: StreamRevision | undefined): boolean {
    if (readRevision === undefined) this.hint = typeof error.actual === 'bigint' ? error.actual : undefined;
    this.count += 1;
    return this.count <= this.max;
  }

  expected(readRevision: StreamRevision | undefined): ExpectedRevision {
    return readRevision ?? this.hint ?? 'no_stream';
  }
}
