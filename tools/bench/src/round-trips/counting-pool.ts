import type { Pool, PoolClient } from 'pg';
import type { RoundTripCounter } from './round-trip-counter.js';

type Callable = (...args: unknown[]) => unknown;
type ConnectCallback = (error: Error | undefined, client: PoolClient | undefined, release: Callable) => void;

/** The client, counting each statement it sends for `operation`. */
const countingClient = (
  client: PoolClient,
  counter: RoundTripCounter,
  operation: ReturnType<RoundTripCounter['current']>,
): PoolClient =>
  new Proxy(client, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (property !== 'query') return typeof value === 'function' ? (value as Callable).bind(target) : value;
      return (...args: unknown[]) => {
        counter.countFor(operation);
        return (value as Callable).apply(target, args);
      };
    },
  });

/**
 * The pool, counting each statement sent through it for the store operation running when it was asked for: a
 * `query` of the pool's own, or one on a connection taken with `connect` (the adapter's writes take a connection per
 * statement). Counted when asked for, so a statement that waits for a free connection still counts for its caller.
 */
export const countingPool = (pool: Pool, counter: RoundTripCounter): Pool =>
  new Proxy(pool, {
    get: (target, property, receiver) => {
      if (property === 'query')
        return (...args: unknown[]) => {
          counter.count();
          return (target.query as Callable).apply(target, args);
        };
      if (property === 'connect')
        return (callback?: ConnectCallback) => {
          const operation = counter.current();
          if (callback === undefined)
            return target.connect().then((client) => countingClient(client, counter, operation));
          target.connect((error, client, release) => {
            callback(error, client && countingClient(client, counter, operation), release as Callable);
          });
          return undefined;
        };
      return Reflect.get(target, property, receiver);
    },
  });
