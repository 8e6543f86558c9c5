/** The invariants a run is checked against, in report order. */
export const invariantNames = [
  'effects-per-intent',
  'identical-2xx-bodies',
  'invoices-balance',
  'gateway-charges-match-payments',
  'completed-orders-one-sale',
  'read-models-equal-fold',
  'no-key-in-flight',
] as const;

export type InvariantName = (typeof invariantNames)[number];

/** One invariant's verdict: `skipped` when the facts it needs could not be observed. */
export interface Verdict {
  readonly invariant: InvariantName;
  readonly status: 'pass' | 'fail' | 'skipped';
  /** What it looked at (intents, keys, invoices, …). */
  readonly checked: number;
  readonly violationCount: number;
  /** The first violations, described. */
  readonly violations: readonly string[];
}

const shownViolations = 20;

/** A verdict from the violations found among `checked` items. */
export const verdictOf = (
  invariant: InvariantName,
  checked: number,
  violations: readonly string[],
): Verdict => ({
  invariant,
  status: violations.length === 0 ? 'pass' : 'fail',
  checked,
  violationCount: violations.length,
  violations: violations.slice(0, shownViolations),
});

/** The verdict of an invariant whose facts were not observable. */
export const skipped = (invariant: InvariantName): Verdict => ({
  invariant,
  status: 'skipped',
  checked: 0,
  violationCount: 0,
  violations: [],
});
