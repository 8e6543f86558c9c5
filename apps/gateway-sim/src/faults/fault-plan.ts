import type { FaultTarget, GatewayFault } from './fault.js';

/** Metadata a charge must carry for a fault to apply to it (every entry equal), e.g. `{ invoiceId: 'inv_1' }`. */
export type FaultMatch = Readonly<Record<string, string>>;

/** A fault armed for the next `remaining` calls of one kind (only those whose metadata matches `when`, if set). */
export interface ArmedFault {
  readonly target: FaultTarget;
  readonly fault: GatewayFault;
  readonly remaining: number;
  readonly when?: FaultMatch;
}

/** Faults armed ahead of time (through the admin endpoint or by a test), consumed first in, first out. */
export interface FaultPlan {
  arm(target: FaultTarget, fault: GatewayFault, times?: number, when?: FaultMatch): void;
  /**
   * The fault for the next call of this kind, if one is armed for it; consumes one use. A fault armed `when` some
   * metadata applies only to a call carrying that metadata (an inquiry carries none).
   */
  take(target: FaultTarget, metadata?: FaultMatch): GatewayFault | undefined;
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
    arm: (target, fault, times = 1, when) => {
      armed.push({ target, fault, remaining: times, ...(when ? { when } : {}) });
    },
    take: (target, metadata = {}) => {
      const index = armed.findIndex(
        (entry) =>
          entry.target === target &&
          Object.entries(entry.when ?? {}).every(([name, value]) => metadata[name] === value),
      );
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
