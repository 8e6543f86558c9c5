/** A round repeated on a schedule, one at a time. */
export interface ScheduledRounds<Round> {
  /** One round now; while a round runs, a second call (or tick) joins it instead of starting another. */
  runRound(): Promise<Round>;
  /** Ends the schedule and waits for the round in hand. */
  stop(): Promise<void>;
}

/**
 * Runs `round` every `intervalMs` (the first one interval after the start), never two at once; a failed round goes
 * to `onError` and the next tick runs as usual. The timer does not hold the process open. The leader loop both
 * scavengers share: each brings its own leadership and work in `round`.
 *
 * @example
 * const rounds = scheduleRounds({ intervalMs: 10_000, round: removeSomeStreams, onError: log });
 * await rounds.stop();
 */
export const scheduleRounds = <Round>(options: {
  readonly intervalMs: number;
  readonly round: () => Promise<Round>;
  readonly onError?: ((error: unknown) => void) | undefined;
}): ScheduledRounds<Round> => {
  let inProgress: Promise<Round> | undefined;
  const runRound = (): Promise<Round> => {
    inProgress ??= options.round().finally(() => {
      inProgress = undefined;
    });
    return inProgress;
  };
  const timer = setInterval(() => {
    runRound().catch((error: unknown) => options.onError?.(error));
  }, options.intervalMs);
  timer.unref();
  return {
    runRound,
    stop: async () => {
      clearInterval(timer);
      await inProgress?.catch(() => undefined);
    },
  };
};
