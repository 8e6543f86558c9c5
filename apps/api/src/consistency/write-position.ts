import { AsyncLocalStorage } from 'node:async_hooks';
import { comparePositions } from '@once/event-store';
import type { AppendResult, EventStore, GlobalPosition } from '@once/event-store';

/** The latest position a request's own appends reached (filled while the request runs). */
export interface WritePositionCapture {
  position: GlobalPosition | undefined;
}

const captures = new AsyncLocalStorage<WritePositionCapture>();

/**
 * Runs `work` (and everything it starts) with a fresh capture: every append made through a store wrapped by
 * `capturingWritePositions` meanwhile moves `capture.position` to its result, so the request knows where its write
 * sits in the global order. The engine does not expose its append results; this sees them without changing it.
 *
 * @example
 * app.addHook('onRequest', (request, _reply, done) => runWithWriteCapture(request.writeCapture, done));
 */
export const runWithWriteCapture = <T>(capture: WritePositionCapture, work: () => T): T =>
  captures.run(capture, work);

/** Raises the current request's capture to `position` (the later of the two). */
export const noteWritePosition = (position: GlobalPosition): void => {
  const capture = captures.getStore();
  if (capture && (capture.position === undefined || comparePositions(position, capture.position) > 0)) {
    capture.position = position;
  }
};

const noteAll = (results: readonly AppendResult[]): void => {
  for (const result of results) noteWritePosition(result.position);
};

/**
 * The store, unchanged, except that `appendToStream` and `appendMulti` report their positions to the request that
 * made them (see `runWithWriteCapture`). Appends outside a request (the projector, the completer) report nowhere.
 *
 * @example
 * app.decorate('eventStore', capturingWritePositions(createPostgresEventStore(pool)));
 */
export const capturingWritePositions = (store: EventStore): EventStore =>
  new Proxy(store, {
    get(target, property) {
      if (property === 'appendToStream') {
        return async (...args: Parameters<EventStore['appendToStream']>) => {
          const result = await target.appendToStream(...args);
          noteAll([result]);
          return result;
        };
      }
      if (property === 'appendMulti') {
        return async (...args: Parameters<EventStore['appendMulti']>) => {
          const results = await target.appendMulti(...args);
          noteAll(results);
          return results;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
