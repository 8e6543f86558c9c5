import { WrongExpectedRevisionError } from './errors.js';
import type { EventToAppend, ExpectedRevision, StreamAppend, StreamRevision } from './event-store.js';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Rejects an append no adapter may accept: an empty stream name, a negative or non-bigint revision,
 * an event id that is not a UUID, or a type that is empty. Adapters call it before touching storage,
 * so every adapter fails the same way.
 *
 * @example
 * assertValidAppend('invoice-1', [{ id: crypto.randomUUID(), type: 'InvoiceIssued', data: {} }], 'no_stream');
 */
export const assertValidAppend = (
  stream: string,
  events: readonly EventToAppend[],
  expectedRevision: ExpectedRevision,
): void => {
  if (typeof stream !== 'string' || stream.length === 0)
    throw new TypeError('stream must be a non-empty string');
  if (
    expectedRevision !== 'no_stream' &&
    expectedRevision !== 'stream_exists' &&
    expectedRevision !== 'any' &&
    (typeof expectedRevision !== 'bigint' || expectedRevision < 0n)
  ) {
    throw new RangeError(`expectedRevision must be 'no_stream', 'stream_exists', 'any' or a bigint >= 0n`);
  }
  for (const event of events) {
    if (typeof event.id !== 'string' || !uuidPattern.test(event.id)) {
      throw new TypeError(`event id must be a UUID, got ${String(event.id)}`);
    }
    if (typeof event.type !== 'string' || event.type.length === 0)
      throw new TypeError('event type must be non-empty');
  }
};

/**
 * Rejects a multi-stream append that names a stream twice (one expectation per stream, as KurrentDB requires).
 *
 * @example
 * assertValidMultiAppend([{ stream: 'a', events: [], expectedRevision: 'any' }]);
 */
export const assertValidMultiAppend = (appends: readonly StreamAppend[]): void => {
  const seen = new Set<string>();
  for (const append of appends) {
    if (seen.has(append.stream))
      throw new RangeError(`stream ${append.stream} appears twice in one appendMulti`);
    seen.add(append.stream);
    assertValidAppend(append.stream, append.events, append.expectedRevision);
  }
  if (!isGuardedWrite(appends)) return;
  for (const append of appends) {
    if (
      append.events.length === 0 ||
      (append.expectedRevision !== 'no_stream' && typeof append.expectedRevision !== 'bigint')
    )
      throw new RangeError('every stream of a guarded appendMulti needs events and no_stream or a revision');
  }
};

/**
 * Why a guarded write was not made (see `EventStore.appendMulti`), as every adapter reports it: the first stream not at
 * its expected revision, else the first stream (a guard failed, or the write repeats an earlier one).
 */
export const guardedWriteRefusal = (
  appends: readonly StreamAppend[],
  actualOf: (stream: string) => StreamRevision | 'no_stream',
): WrongExpectedRevisionError => {
  const refused =
    appends.find((append) => actualOf(append.stream) !== append.expectedRevision) ??
    (appends[0] as StreamAppend);
  return new WrongExpectedRevisionError(refused.stream, refused.expectedRevision, actualOf(refused.stream));
};

/** True when some stream of a multi-stream write carries a guard (`expectNoRetention`). */
export const isGuardedWrite = (appends: readonly StreamAppend[]): boolean =>
  appends.some((append) => append.expectNoRetention === true);
