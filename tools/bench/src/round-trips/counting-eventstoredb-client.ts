import type { EventStoreDBClient } from '@eventstore/db-client';
import type { RoundTripCounter } from './round-trip-counter.js';

/**
 * The client's calls that go to the server as one gRPC call each (`execute`: a call the adapter makes through the
 * client's own machinery, the server scavenge). A subscription counts once, when it starts.
 */
const serverCalls = new Set<PropertyKey>([
  'appendToStream',
  'setStreamMetadata',
  'getStreamMetadata',
  'readStream',
  'readAll',
  'subscribeToAll',
  'subscribeToStream',
  'deleteStream',
  'tombstoneStream',
  'execute',
]);

/**
 * The client, counting each call to the server for the store operation running, except a read of a stream's metadata,
 * which counts as a `readStream` (an append with a retention reads the metastream before it writes it). Its methods
 * run on the client itself, so a call the client makes through another of its own (metadata through
 * `appendToStream`) counts once.
 */
export const countingEventStoreDbClient = (
  client: EventStoreDBClient,
  counter: RoundTripCounter,
): EventStoreDBClient =>
  new Proxy(client, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (!serverCalls.has(property)) return method.bind(target);
      return (...args: unknown[]) => {
        if (property === 'getStreamMetadata') counter.countFor(counter.current() && 'readStream');
        else counter.count();
        return method.apply(target, args);
      };
    },
  });
