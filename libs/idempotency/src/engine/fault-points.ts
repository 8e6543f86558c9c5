/** The places between protocol steps where a test (or a chaos run) can crash or stall the engine. */
export type FaultPoint = 'after-claim' | 'after-plan' | 'after-effect' | 'before-complete' | 'after-complete';

export const faultPoints: readonly FaultPoint[] = [
  'after-claim',
  'after-plan',
  'after-effect',
  'before-complete',
  'after-complete',
];

export interface FaultContext {
  readonly keyStream: string;
  readonly protocol: 'atomic' | 'phased';
}

/**
 * Called at every fault point. Throwing simulates a crash there: the engine stops at once and cleans nothing up,
 * as a dead process would. Returning a promise that settles late simulates a stall (the lease may expire meanwhile).
 */
export type FaultHook = (point: FaultPoint, context: FaultContext) => void | Promise<void>;
