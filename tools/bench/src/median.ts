/**
 * The middle of the values once sorted; with an even count, the upper of the two middles (a value that was measured,
 * never an average of two); 0 for none.
 *
 * @example
 * median([3, 1, 2]); // 2
 */
export const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
