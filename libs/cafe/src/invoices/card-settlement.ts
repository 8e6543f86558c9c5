import type { RecordedEvent } from '@once/event-store';
import { cardSettlementDecider } from '@once/domain/card-settlements';
import type {
  CardSettlementCommand,
  CardSettlementEvent,
  CardSettlementState,
  SettlementRetryPolicy,
} from '@once/domain/card-settlements';
import type { HandlerResponse } from '@once/idempotency';
import { HttpProblem, problemResponse } from '../problems/index.js';

/** What the card handlers need to settle a payment whose gateway outcome is unknown. */
export interface CardSettlementDeps {
  /** Reads a settlement stream as it is now: attempts and their timing are not part of a recorded plan. */
  readonly readStream: (stream: string) => Promise<readonly RecordedEvent[]>;
  readonly retryPolicy: SettlementRetryPolicy;
  /** The clock attempts are timed by (the engine's). */
  readonly now: () => Date;
}

/**
 * Eight attempts, 5 s apart at first and doubling to at most 5 min (the last about 10 minutes after the first; each
 * also at least a lease after the one before), then an operator. A client that retries with its card token is not
 * held back by the pauses.
 */
export const defaultSettlementRetryPolicy: SettlementRetryPolicy = {
  maxAttempts: 8,
  baseDelayMs: 5_000,
  maxDelayMs: 300_000,
};

/** Folds a settlement stream's events. */
export const foldSettlement = (events: readonly { type: string; data: unknown }[]): CardSettlementState =>
  events.reduce(
    (state, event) =>
      cardSettlementDecider.evolve(state, { type: event.type, data: event.data } as CardSettlementEvent),
    cardSettlementDecider.initialState(),
  );

/** Decides several settlement commands in turn, each against the state the ones before it left. */
export const decideSettlement = (
  state: CardSettlementState,
  commands: readonly CardSettlementCommand[],
): { readonly events: readonly CardSettlementEvent[]; readonly state: CardSettlementState } =>
  commands.reduce<{ events: readonly CardSettlementEvent[]; state: CardSettlementState }>(
    (decided, command) => {
      const events = cardSettlementDecider.decide(command, decided.state);
      return {
        events: [...decided.events, ...events],
        state: events.reduce(cardSettlementDecider.evolve, decided.state),
      };
    },
    { events: [], state },
  );

/**
 * The stored answer of a card payment the completer gave up on (`payment-needs-attention`): a documented problem,
 * replayed byte for byte; the payment itself ends when an operator resolves it.
 */
export const needsAttentionResponse = (paymentId: string, attempts: number): HandlerResponse =>
  problemResponse(
    new HttpProblem('payment-needs-attention', {
      detail: `the gateway's answer stayed unknown after ${String(attempts)} attempts; an operator resolves the payment`,
      extensions: { paymentId, attempts },
    }),
  );
