/** Above this share of refused attempts the engine mostly reads first. */
const MOSTLY_REFUSED = 0.2;
/** While mostly refused, one first request in this many still tries by default, to notice when that changes. */
const PROBE_EVERY = 16;
/**
 * While most attempts on aggregates this process knows nothing of are refused, one first request in this many still
 * tries. Such refusals come mostly from retries of keys other processes completed (a replay that paid two statements
 * for nothing), so the engine probes more rarely than where kept aggregates moved.
 */
export const NEW_AGGREGATE_PROBE_EVERY = 128;
/** How many recent attempts the refused share roughly spans (the weight of each new one is its inverse). */
const SPAN = 32;

/**
 * Whether the next first request is decided on kept events (see the atomic protocol). A refused attempt costs two
 * statements more than reading first, so where most attempts are refused (other processes write the same aggregates,
 * or retry keys this one did not complete), the engine reads first instead, trying one request in `probeEvery` to
 * notice when that changes.
 */
export class KeptDecisions {
  private refusedShare = 0;
  private sinceProbe = 0;

  constructor(
    private readonly enabled: boolean,
    private readonly probeEvery: number = PROBE_EVERY,
  ) {}

  /** True when the next first request should be decided on kept events. */
  shouldTry(): boolean {
    if (!this.enabled) return false;
    if (this.refusedShare <= MOSTLY_REFUSED) return true;
    this.sinceProbe += 1;
    if (this.sinceProbe < this.probeEvery) return false;
    this.sinceProbe = 0;
    return true;
  }

  /** How an attempt's guarded append ended: committed, or refused by the store. */
  record(refused: boolean): void {
    this.refusedShare += ((refused ? 1 : 0) - this.refusedShare) / SPAN;
  }
}
