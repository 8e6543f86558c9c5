/** Points where a test can kill the api: the engine's, plus one inside the card payment after the gateway charged. */
export const processFaultPoints = [
  'after-claim',
  'after-plan',
  'after-effect',
  'before-complete',
  'after-complete',
  'after-gateway-charge',
] as const;
export type ProcessFaultPoint = (typeof processFaultPoints)[number];

/** A point and which arrival at it fires (1 = the first). */
export interface ProcessFaultSpec {
  readonly point: ProcessFaultPoint;
  readonly occurrence: number;
}

/**
 * Reads `ONCE_FAULT`: `<point>` or `<point>@<n>` (fire on the n-th arrival at that point). Test-only.
 *
 * @example
 * parseProcessFault('after-effect@2'); // { point: 'after-effect', occurrence: 2 }
 */
export const parseProcessFault = (text: string): ProcessFaultSpec | undefined => {
  const [point, occurrence = '1'] = text.trim().split('@', 2);
  const n = Number(occurrence);
  if (!processFaultPoints.includes(point as ProcessFaultPoint) || !Number.isSafeInteger(n) || n < 1)
    return undefined;
  return { point: point as ProcessFaultPoint, occurrence: n };
};

/** Called at every fault point the api passes; does nothing unless a fault is armed there. */
export type ProcessFaultHook = (point: ProcessFaultPoint) => void;

/**
 * A hook that calls `fire` (in `main.ts`: kill the process with SIGKILL, no clean-up) on the armed arrival.
 *
 * @example
 * const hook = createProcessFaultHook({ point: 'after-effect', occurrence: 1 }, () => process.kill(process.pid, 'SIGKILL'));
 */
export const createProcessFaultHook = (
  spec: ProcessFaultSpec | undefined,
  fire: () => void,
): ProcessFaultHook => {
  let arrivals = 0;
  return (point) => {
    if (!spec || point !== spec.point) return;
    arrivals += 1;
    if (arrivals === spec.occurrence) fire();
  };
};
