import { randomUUID } from 'node:crypto';
import type {
  EventStore,
  EventToAppend,
  ReadAllBatch,
  ReadAllOptions,
  RecordedEvent,
} from '../port/index.js';
import { WrongExpectedRevisionError } from '../port/index.js';

/** A clock the contract moves by hand, for retention by age. */
export interface TestClock {
  now(): Date;
  advance(seconds: number): void;
}

/**
 * A clock that starts at the real time and only moves when told.
 *
 * @example
 * const clock = createTestClock();
 * clock.advance(60);
 */
export const createTestClock = (start: Date = new Date()): TestClock => {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance: (seconds) => {
      current += seconds * 1000;
    },
  };
};

/**
 * `count` events with fresh UUIDs and a type.
 *
 * @example
 * await store.appendToStream('s', someEvents(2), { expectedRevision: 'no_stream' });
 */
export const someEvents = (count: number, type = 'SomethingHappened'): EventToAppend[] =>
  Array.from({ length: count }, (_, index) => ({
    id: randomUUID(),
    type,
    data: { index, note: `event ${index}` },
    metadata: { source: 'contract' },
  }));

/** A stream name no other test uses. */
export const freshStream = (label = 'stream'): string => `${label}-${randomUUID()}`;

/**
 * Awaits a promise that must fail with `WrongExpectedRevisionError` and returns the error.
 *
 * @example
 * const error = await expectWrongRevision(store.appendToStream('s', someEvents(1), { expectedRevision: 5n }));
 */
export const expectWrongRevision = async (promise: Promise<unknown>): Promise<WrongExpectedRevisionError> => {
  const outcome = await promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (outcome.ok)
    throw new Error(`expected WrongExpectedRevisionError, the append succeeded: ${String(outcome.value)}`);
  if (!(outcome.error instanceof WrongExpectedRevisionError)) throw outcome.error;
  return outcome.error;
};

/**
 * Reads the global order after `options.after` until the reader is caught up and `until` holds (or `timeoutMs`
 * passes), returning every batch's events in order and the last checkpoint.
 *
 * @example
 * const { events } = await readAllUntil(store, { filter: { streamPrefixes: [prefix] } }, (seen) => seen.length >= 3);
 */
export const readAllUntil = async (
  readAll: EventStore['readAll'],
  options: ReadAllOptions,
  until: (seen: readonly RecordedEvent[]) => boolean = () => true,
  timeoutMs = 10_000,
): Promise<{ events: RecordedEvent[]; checkpoint: ReadAllBatch['checkpoint']; batches: number }> => {
  const events: RecordedEvent[] = [];
  let checkpoint = options.after;
  let batches = 0;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const batch = await readAll({ ...options, ...(checkpoint === undefined ? {} : { after: checkpoint }) });
    batches += 1;
    events.push(...batch.events);
    checkpoint = batch.checkpoint ?? checkpoint;
    if (batch.caughtUp && (until(events) || Date.now() > deadline)) return { events, checkpoint, batches };
    if (batch.caughtUp) await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
