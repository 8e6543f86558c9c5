import type {
  AllStreamResolvedEvent,
  AllStreamSubscription,
  EventStoreDBClient,
  Filter,
  Position,
} from '@eventstore/db-client';
import { START, eventTypeFilter, excludeSystemEvents, streamNameFilter } from '@eventstore/db-client';
import type {
  GlobalFilter,
  GlobalPosition,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
} from '../port/index.js';
import { comparePositions } from '../port/index.js';
import { matchesFilter, toRecordedEvent } from './eventstoredb-mapping.js';

type Item =
  | { readonly kind: 'event'; readonly event: RecordedEvent }
  | { readonly kind: 'checkpoint'; readonly position: GlobalPosition };

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The server-side filter for a global filter: stream prefixes when given (event types then checked here), else an
 * exact-type regex, else everything but system events. `checkpointReached` fires while the server skips events, so
 * a sparse filter still moves the checkpoint.
 */
const serverFilter = (
  filter: GlobalFilter | undefined,
  checkpointReached: (subscription: AllStreamSubscription, position: Position) => void,
): Filter => {
  if (filter?.streamPrefixes)
    return streamNameFilter({ prefixes: [...filter.streamPrefixes], checkpointReached });
  if (filter?.eventTypes) {
    const regex = `^(?:${filter.eventTypes.map(escapeRegex).join('|')})$`;
    return eventTypeFilter({ regex, checkpointReached });
  }
  return excludeSystemEvents({ checkpointReached });
};

/**
 * Follows `$all` with a catch-up subscription and hands `onBatch` what arrived since the last batch (events, or just
 * a checkpoint the server reached), one batch at a time, pausing the server stream while a batch is handled.
 */
export const subscribeToEventStoreDb = (
  client: EventStoreDBClient,
  options: SubscribeOptions,
): Subscription => {
  if (options.maxCount !== undefined && !(options.maxCount >= 1))
    throw new RangeError('maxCount must be at least 1');
  const maxCount = options.maxCount ?? 500;
  const queue: Item[] = [];
  let last: GlobalPosition | undefined = options.after;
  let stopped = false;
  let wake: (() => void) | undefined;
  let failure: { error: unknown } | undefined;
  const notify = (): void => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };

  const subscription = client.subscribeToAll({
    fromPosition: options.after ? { commit: options.after.commit, prepare: options.after.prepare } : START,
    filter: serverFilter(options.filter, (_subscription, position) => {
      queue.push({ kind: 'checkpoint', position: { commit: position.commit, prepare: position.prepare } });
      notify();
    }),
  });
  subscription.on('data', (resolved: AllStreamResolvedEvent) => {
    const event = toRecordedEvent(resolved);
    if (event === undefined) return;
    queue.push({ kind: 'event', event });
    if (queue.length >= maxCount * 2) subscription.pause();
    notify();
  });
  subscription.on('error', (error: unknown) => {
    failure ??= { error };
    notify();
  });

  const nextBatch = (): { events: RecordedEvent[]; checkpoint: GlobalPosition | undefined } => {
    const events: RecordedEvent[] = [];
    let checkpoint: GlobalPosition | undefined;
    while (queue.length > 0 && events.length < maxCount) {
      const item = queue.shift() as Item;
      const position = item.kind === 'event' ? item.event.position : item.position;
      if (last !== undefined && comparePositions(position, last) <= 0) continue;
      checkpoint = position;
      if (item.kind === 'event' && matchesFilter(item.event, options.filter)) events.push(item.event);
    }
    return { events, checkpoint };
  };

  const run = async (): Promise<void> => {
    try {
      while (!stopped) {
        if (failure) throw failure.error;
        if (queue.length === 0) {
          if (subscription.isPaused()) subscription.resume();
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          continue;
        }
        const { events, checkpoint } = nextBatch();
        if (checkpoint === undefined) continue;
        await options.onBatch({ events, checkpoint, caughtUp: queue.length === 0 });
        last = checkpoint;
      }
    } finally {
      await subscription.unsubscribe().catch(() => undefined);
    }
  };

  const done = run();
  done.catch(() => undefined);
  const stop = async (): Promise<void> => {
    stopped = true;
    notify();
    await done.catch(() => undefined);
  };
  if (options.signal) {
    if (options.signal.aborted) void stop();
    else options.signal.addEventListener('abort', () => void stop(), { once: true });
  }
  return { stop, done };
};
