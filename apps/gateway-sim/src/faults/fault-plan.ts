import type { FaultTarget, GatewayFault } from './fault.js';

/** A fault armed for the next `remaining` calls of one kind. */
export interface ArmedFault {
  readonly target: FaultTarget;
  readonly fault: GatewayFault;
  readonly remaining: number;
}

/** Faults armed ahead of time (through the admin endpoint or by a test), consumed first in, first out. */
export interface FaultPlan {
  arm(target: FaultTarget, fault: GatewayFault, times?: number): void;
  /** The fault for the next call of this kind, if one is armed; consumes one use. */
  take(target: FaultTarget): GatewayFault | undefined;
  list(): readonly ArmedFault[];
  clear(): void;
}

/**
 * Creates an empty fault plan.
 *
 * @example
 * const faults = createFaultPlan();
 * faults.arm('charge', { kind: 'lost-response' });
 */
export const createFaultPlan = (): FaultPlan => {
  let armed: ArmedFault[] = [];
  return {
    arm: (target, fault, times = 1) => {
      armed.push({ target, fault, remaining: times });
    },
    take: (target) => {
      const index = armed.findIndex((entry) => entry.target === target);
      const entry = armed[index];
      if (!entry) return undefined;
      armed =
        entry.remaining > 1
          ? armed.map((other, i) => (i === index ? { ...other, remaining: other.remaining - 1 } : other))
          : armed.filter((_, i) => i !== index);
      return entry.fault;
    },
    list: () => [...armed],
    clear: () => {
      armed = [];
    },
  };
};
