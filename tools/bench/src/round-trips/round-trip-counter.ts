import { AsyncLocalStorage } from 'node:async_hooks';
import type { EventStore } from '@once/event-store';

/** A port operation that may cost a request to the store's server. */
export type RoundTripOperation = Exclude<keyof EventStore, 'capabilities' | 'close'>;

/**
 * Counts requests to a store's server by the port operation they serve. `around` wraps a store so each call of its
 * operations runs under that operation's name; the pool and client wrappers (`countingPool`,
 * `countingEventStoreDbClient`) then `count` each request sent while one runs. Requests sent outside every operation
 * (migrations when the store is made) are not counted.
 */
export interface RoundTripCounter {
  readonly counts: Map<RoundTripOperation, number>;
  /** The store, each of its operations running as itself for `count`. */
  around(store: EventStore): EventStore;
  /** One request sent now, for the operation running (none: not counted). */
  count(): void;
  /** The operation running now, to count a request sent later for it (`countFor`). */
  current(): RoundTripOperation | undefined;
  /** One request sent for `operation` (none: not counted). */
  countFor(operation: RoundTripOperation | undefined): void;
}

const operations: readonly RoundTripOperation[] = [
  'appendToStream',
  'appendMulti',
  'readStream',
  'readStreamTails',
  'readAll',
  'subscribeToAll',
  'setStreamRetention',
  'scavenge',
];

export const createRoundTripCounter = (): RoundTripCounter => {
  const counts = new Map<RoundTripOperation, number>();
  const running = new AsyncLocalStorage<RoundTripOperation>();
  const countFor = (operation: RoundTripOperation | undefined): void => {
    if (operation !== undefined) counts.set(operation, (counts.get(operation) ?? 0) + 1);
  };
  const around = (store: EventStore): EventStore => {
    const wrapped: Record<string, unknown> = { ...store };
    for (const operation of operations) {
      const call = store[operation] as ((...args: unknown[]) => unknown) | undefined;
      if (call !== undefined)
        wrapped[operation] = (...args: unknown[]) => running.run(operation, () => call(...args));
    }
    return wrapped as unknown as EventStore;
  };
  return {
    counts,
    around,
    count: () => countFor(running.getStore()),
    current: () => running.getStore(),
    countFor,
  };
};
