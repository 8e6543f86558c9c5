import type {
  GlobalPosition,
  ReadAllBatch,
  ReadAllOptions,
  SubscribeOptions,
  Subscription,
} from '../port/index.js';
import { comparePositions } from '../port/index.js';

/** Something that can wake a waiting subscription early, e.g. when an append lands. */
export interface AppendSignal {
  /** Registers a one-shot listener; returns a function that removes it. */
  onNextAppend(listener: () => void): () => void;
}

/**
 * A subscription over a pull-based `readAll`: reads batch after batch from the checkpoint, hands each batch whose
 * checkpoint moved to `onBatch` (also when a filter matched nothing, so sparse filters still advance), and polls
 * once caught up.
 *
 * @param readAll the adapter's global read
 * @param options where to start, what to deliver, how often to poll
 * @param appendSignal optional early wake-up on new appends
 * @example
 * const subscription = subscribeByPolling((o) => store.readAll(o), { onBatch: async (batch) => {} });
 * await subscription.stop();
 */
export const subscribeByPolling = (
  readAll: (options: ReadAllOptions) => Promise<ReadAllBatch>,
  options: SubscribeOptions,
  appendSignal?: AppendSignal,
): Subscription => {
  if (options.maxCount !== undefined && !(options.maxCount >= 1))
    throw new RangeError('maxCount must be at least 1');
  const pollIntervalMs = options.pollIntervalMs ?? 50;
  let stopped = false;
  let wake: (() => void) | undefined;

  const sleep = (): Promise<void> =>
    new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        unsubscribe?.();
        wake = undefined;
        resolve();
      };
      const timer = setTimeout(finish, pollIntervalMs);
      const unsubscribe = appendSignal?.onNextAppend(finish);
      wake = finish;
    });

  const run = async (): Promise<void> => {
    let after: GlobalPosition | undefined = options.after;
    while (!stopped) {
      const batch = await readAll({
        ...(after === undefined ? {} : { after }),
        ...(options.filter === undefined ? {} : { filter: options.filter }),
        ...(options.maxCount === undefined ? {} : { maxCount: options.maxCount }),
      });
      const moved =
        batch.checkpoint !== undefined &&
        (after === undefined || comparePositions(batch.checkpoint, after) > 0);
      if (moved && !stopped) {
        await options.onBatch(batch);
        after = batch.checkpoint;
      }
      if (batch.caughtUp && !stopped) await sleep();
    }
  };

  const stop = async (): Promise<void> => {
    stopped = true;
    wake?.();
    await done.catch(() => undefined);
  };

  const done = run();
  done.catch(() => undefined);
  if (options.signal) {
    if (options.signal.aborted) void stop();
    else options.signal.addEventListener('abort', () => void stop(), { once: true });
  }
  return { stop, done };
};
