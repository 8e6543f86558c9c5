/** A random source in [0, 1) that replays from its seed (mulberry32): the run's schedule and workload draw from it. */
export type Random = () => number;

/**
 * A seeded random source.
 *
 * @example
 * const random = seededRandom(42);
 * random(); // the same sequence for seed 42 every time
 */
export const seededRandom = (seed: number): Random => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};

/** An integer in [min, max]. */
export const randomInt = (random: Random, min: number, max: number): number =>
  min + Math.floor(random() * (max - min + 1));

/** One element of a non-empty list. */
export const pick = <T>(random: Random, items: readonly T[]): T => {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new RangeError('pick needs a non-empty list');
  return item;
};
