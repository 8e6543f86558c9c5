import type { ExpectedRevision, StreamRevision } from './event-store.js';

/** The stream was not where the writer expected it to be. */
export class WrongExpectedRevisionError extends Error {
  readonly code = 'wrong-expected-revision';

  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    readonly actual: StreamRevision | 'no_stream',
    options?: { cause?: unknown },
  ) {
    super(`stream ${stream}: expected revision ${String(expected)}, actual ${String(actual)}`, options);
    this.name = 'WrongExpectedRevisionError';
  }
}

/** The adapter cannot do what was asked (e.g. `appendMulti` on EventStoreDB 6.x). */
export class UnsupportedOperationError extends Error {
  readonly code = 'unsupported-operation';

  constructor(
    readonly operation: string,
    options?: { cause?: unknown },
  ) {
    super(`${operation} is not supported by this event store`, options);
    this.name = 'UnsupportedOperationError';
  }
}
