/**
 * The longest wait before each retry (ms), after the first attempt fails: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h.
 * Eight attempts in all over up to about 28 hours; each actual wait is drawn uniformly between zero and its step
 * (full jitter), so receivers coming back from an outage are not hit by every relay at the same instant.
 */
export const defaultRetryLadderMs: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

/**
 * The wait before the next attempt after `attempts` failed ones, or undefined when the ladder is exhausted (the
 * message is dead-lettered).
 *
 * @example
 * retryDelayMs(defaultRetryLadderMs, 1, Math.random); // somewhere in [0, 5000)
 */
export const retryDelayMs = (
  ladder: readonly number[],
  attempts: number,
  random: () => number,
): number | undefined => {
  const step = ladder[attempts - 1];
  return step === undefined ? undefined : Math.floor(random() * step);
};
