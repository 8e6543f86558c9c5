/** Above this share of refused attempts the engine mostly reads first. */
const MOSTLY_REFUSED = 0.2;
/** While mostly refused, one first request in this many still tries, to notice when other writers have gone. */
const PROBE_EVERY = 16;
/** How many recent attempts the refused share roughly spans (the weight of each new one is its inverse). */
const SPAN = 32;

/**
 * Whether the next first request is decided on kept events (see the atomic protocol). A refused attempt costs two
 * statements more than reading first, so where other processes write the same aggregates and most attempts are
 * refused, the engine reads first instead, trying one request in `PROBE_EVERY` to notice when that changes.
 */
export class KeptDecisions {
  private refusedShare = 0;
  private sinceProbe = 0;

  constructor(private readonly enabled: boolean) {}

  /** True when the next first request should be decided on kept events. */
  shouldTry(): boolean {
    if (!this.enabled) return false;
    if (this.refusedShare <= MOSTLY_REFUSED) return true;
    this.sinceProbe += 1;
    if (this.sinceProbe < PROBE_EVERY) return false;
    this.sinceProbe = 0;
    return true;
  }

  /** How an attempt's guarded append ended: committed, or refused by the store. */
  record(refused: boolean): void {
    this.refusedShare += ((refused ? 1 : 0) - this.refusedShare) / SPAN;
  }
}
