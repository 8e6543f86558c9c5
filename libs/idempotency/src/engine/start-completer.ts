import { completeAbandonedKeys } from './complete-abandoned-keys.js';
import type { AbandonedKeyResult, CompleteAbandonedKeysOptions } from './complete-abandoned-keys.js';

/** A round of the completer's own: its results, or undefined when it did not run (another process held it). */
export type CompleterRound = () => Promise<readonly AbandonedKeyResult[] | undefined>;

/** When the completer runs and whom it tells. */
export interface CompleterSchedule {
  /** Pause before each round (ms); the first round runs one interval after the start. Default 5,000. */
  readonly intervalMs?: number;
  /** Ends the schedule when aborted (`stop()` does too, and waits for the round in hand). */
  readonly signal?: AbortSignal;
  /** Told the results of each round that ran (not of one another process held). */
  readonly onRound?: (results: readonly AbandonedKeyResult[]) => void;
  /** Told a failed round; the next one runs as usual. Failed rounds are otherwise dropped. */
  readonly onError?: (error: unknown) => void;
}

/**
 * What `startCompleter` runs each round: every key the store holds in flight, through `engine` and `handlers`
 * (`completeAbandonedKeys`); or a `round` of its own, e.g. one that takes its keys from a key table under a lock.
 */
export type StartCompleterOptions = CompleterSchedule &
  (
    | {
        readonly engine: CompleteAbandonedKeysOptions['engine'];
        readonly handlers: CompleteAbandonedKeysOptions['handlers'];
        /** Clock (epoch ms) for "the lease has ended". Default: the engine's. */
        readonly now?: () => number;
      }
    | { readonly round: CompleterRound }
  );

/** A running completer. */
export interface RunningCompleter {
  /** One round now; while a round runs, a second call (or the timer) joins it instead of starting another. */
  runRound(): Promise<readonly AbandonedKeyResult[] | undefined>;
  /** Ends the schedule and waits for the round in hand. */
  stop(): Promise<void>;
}

const defaultIntervalMs = 5_000;

/**
 * Starts the completer: a round every `intervalMs` that finishes the keys left in flight whose lease has ended (their
 * client crashed or gave up) from their recovery point, exactly as a retry would. Never two rounds at once; a failed
 * round goes to `onError` and the next runs as usual; the timer does not hold the process open. Any number of
 * processes may run one: a key's lease lets one of them finish it.
 *
 * @param options the engine and the handlers of every command (or a `round` of its own), and the schedule
 * @returns the running completer: `runRound()` for a round now, `stop()` to end it
 * @example
 * const completer = startCompleter({ engine, handlers, intervalMs: 10_000, onError: (error) => log.warn(error) });
 * await completer.stop();
 */
export const startCompleter = (options: StartCompleterOptions): RunningCompleter => {
  const round: CompleterRound =
    'round' in options
      ? options.round
      : () =>
          completeAbandonedKeys({
            engine: options.engine,
            handlers: options.handlers,
            ...(options.now === undefined ? {} : { now: options.now() }),
          });
  let inProgress: Promise<readonly AbandonedKeyResult[] | undefined> | undefined;
  const runRound = (): Promise<readonly AbandonedKeyResult[] | undefined> => {
    inProgress ??= round()
      .then((results) => {
        if (results !== undefined) options.onRound?.(results);
        return results;
      })
      .finally(() => {
        inProgress = undefined;
      });
    return inProgress;
  };
  const timer = setInterval(() => {
    runRound().catch((error: unknown) => options.onError?.(error));
  }, options.intervalMs ?? defaultIntervalMs);
  timer.unref();
  const stop = async (): Promise<void> => {
    clearInterval(timer);
    options.signal?.removeEventListener('abort', onAbort);
    await inProgress?.catch(() => undefined);
  };
  const onAbort = (): void => {
    clearInterval(timer);
  };
  if (options.signal?.aborted) clearInterval(timer);
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  return { runRound, stop };
};
