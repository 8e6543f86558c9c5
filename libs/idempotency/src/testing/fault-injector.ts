import type { FaultContext, FaultHook, FaultPoint } from '../engine/index.js';

/** The error an armed fault throws: to the engine it is a crash of the process at that point. */
export class InjectedCrash extends Error {
  readonly code = 'injected-crash';

  constructor(readonly point: FaultPoint) {
    super(`injected crash at ${point}`);
    this.name = 'InjectedCrash';
  }
}

export interface FaultInjector {
  /** Pass as the engine's `faults` option. */
  readonly hook: FaultHook;
  /** Crash (`throw`) or stall (`hang`) the next `times` passes through `point` (optionally for one key stream). */
  arm(
    point: FaultPoint,
    mode?: 'throw' | 'hang',
    options?: { readonly times?: number; readonly keyStream?: string },
  ): void;
  disarm(): void;
  /** Lets every stalled execution go on (it then meets whatever happened meanwhile). */
  releaseHangs(): void;
  /** The points that fired, in order. */
  readonly fired: readonly FaultPoint[];
}

/**
 * Arms fault points so tests can crash or stall the engine between protocol steps.
 *
 * @example
 * const faults = createFaultInjector();
 * const engine = createIdempotencyEngine({ store, faults: faults.hook });
 * faults.arm('after-plan');
 * await expect(engine.execute(input)).rejects.toBeInstanceOf(InjectedCrash);
 */
export const createFaultInjector = (): FaultInjector => {
  let armed: { point: FaultPoint; mode: 'throw' | 'hang'; remaining: number; keyStream?: string }[] = [];
  const hangs: (() => void)[] = [];
  const fired: FaultPoint[] = [];
  const hook: FaultHook = async (point: FaultPoint, context: FaultContext) => {
    const arm = armed.find(
      (candidate) =>
        candidate.point === point &&
        candidate.remaining > 0 &&
        (candidate.keyStream === undefined || candidate.keyStream === context.keyStream),
    );
    if (arm === undefined) return;
    arm.remaining -= 1;
    fired.push(point);
    if (arm.mode === 'throw') throw new InjectedCrash(point);
    await new Promise<void>((resolve) => hangs.push(resolve));
  };
  return {
    hook,
    fired,
    arm: (point, mode = 'throw', options = {}) => {
      armed.push({
        point,
        mode,
        remaining: options.times ?? 1,
        ...(options.keyStream === undefined ? {} : { keyStream: options.keyStream }),
      });
    },
    disarm: () => {
      armed = [];
    },
    releaseHangs: () => {
      for (const resolve of hangs.splice(0)) resolve();
    },
  };
};

/** A clock the test moves by hand (epoch milliseconds), so leases expire without waiting. */
export interface ManualClock {
  now(): number;
  advance(milliseconds: number): void;
}

export const createManualClock = (start = Date.parse('2026-01-01T00:00:00.000Z')): ManualClock => {
  let current = start;
  return {
    now: () => current,
    advance: (milliseconds) => {
      current += milliseconds;
    },
  };
};
