import { decideKeyLog, evolveKeyState } from '../key-log/index.js';
import type {
  IdempotencyEffectPlannedData,
  KeyInFlight,
  KeyLogDecision,
  KeyLogInput,
  PlannedWrite,
} from '../key-log/index.js';
import type { StreamRevision } from '@once/event-store';
import { appendKeyLogTraced } from './command-spans.js';
import type { EngineRuntime } from './engine-runtime.js';
import { leaseExpiresAt } from './engine-settings.js';
import type { Execution } from './execution.js';
import { isConflict, toExpected } from './key-conflicts.js';
import { endOfLifeRetention } from './key-retention.js';

/** A fenced append to the key stream failed: someone else holds the key now. */
export class LeaseLost extends Error {}
/** Optimistic-concurrency conflicts on an aggregate outlasted the retries. */
export class Contention extends Error {}
/** An effect's events are in its stream already: the key's earlier life recorded it, and that log has expired. */
export class RecordedBefore extends Error {
  constructor(readonly stream: string) {
    super(`the events this key derives for ${stream} are recorded already`);
  }
}

/**
 * Our hold on an in-flight key: every key-log event comes from the key-log decider and is appended fenced at the
 * revision we last wrote, so a holder whose lease was taken over cannot write again.
 */
export class KeyHolding {
  /** Effects and steps that may have reached the outside world (a release is only allowed while empty). */
  readonly maybeApplied = new Set<string>();

  constructor(
    private readonly runtime: EngineRuntime,
    readonly execution: Execution,
    readonly holder: string,
    private revision: StreamRevision,
    public state: KeyInFlight,
    readonly resumed: boolean,
  ) {
    for (const point of Object.keys(state.plans)) if (resumed) this.maybeApplied.add(`effect:${point}`);
    for (const point of Object.keys(state.steps)) this.maybeApplied.add(`step:${point}`);
  }

  /** Decides the key-log events for `input` and appends them; `keep` when the decider keeps the key as it is. */
  async append(input: KeyLogInput): Promise<KeyLogDecision> {
    const decision = decideKeyLog(this.state, input);
    if (decision.kind !== 'append') return decision;
    const { store, settings } = this.runtime;
    const endsLife = decision.events.some(
      (event) => event.type === 'IdempotencyKeyCompleted' || event.type === 'IdempotencyKeyReleased',
    );
    try {
      const result = await appendKeyLogTraced(this.execution, decision.events, () =>
        store.appendToStream(
          this.execution.keyStream,
          this.execution.keyEvents(decision.events, this.holder, this.revision),
          {
            expectedRevision: this.revision,
            // The key's retention starts here: while in flight it had none.
            ...(endsLife
              ? {
                  retention: endOfLifeRetention(
                    settings,
                    this.execution.input,
                    this.state.claim.claimedAt,
                    settings.clock(),
                  ),
                }
              : {}),
          },
        ),
      );
      this.execution.wroteKeyLog(result);
      this.revision = result.nextExpectedRevision;
    } catch (error) {
      if (isConflict(error)) throw new LeaseLost(`lost the lease on ${this.execution.keyStream}`);
      throw error;
    }
    const next = decision.events.reduce(evolveKeyState, this.state);
    if (next.status === 'inFlight') this.state = next;
    return decision;
  }

  lease(): string {
    return leaseExpiresAt(this.runtime.settings, this.runtime.settings.clock());
  }

  /** Appends a plan's events at the stored revisions: true when they are in the streams, false when stale. */
  async applyPlan(plan: IdempotencyEffectPlannedData): Promise<boolean> {
    const { store } = this.runtime;
    for (const [index, write] of plan.writes.entries()) {
      try {
        this.execution.wrote([
          await store.appendToStream(write.stream, write.events, {
            expectedRevision: toExpected(write.expectedRevision),
          }),
        ]);
      } catch (error) {
        if (!isConflict(error)) throw error;
        if (await this.alreadyApplied(write)) continue;
        if (index === 0) return false;
        throw new Error(
          `effect ${plan.point}: ${write.stream} moved after ${plan.writes[0]?.stream ?? ''} was written; ` +
            'a phased effect must not write to a second stream that others write to (use one effect per stream)',
        );
      }
    }
    return true;
  }

  private async alreadyApplied(write: PlannedWrite): Promise<boolean> {
    const from = write.expectedRevision === 'no_stream' ? 0n : BigInt(write.expectedRevision) + 1n;
    const found = await this.runtime.store.readStream(write.stream, {
      fromRevision: from,
      maxCount: write.eventIds.length,
    });
    return (
      found.length === write.eventIds.length &&
      found.every((event, index) => event.id.toLowerCase() === write.eventIds[index]?.toLowerCase())
    );
  }
}
