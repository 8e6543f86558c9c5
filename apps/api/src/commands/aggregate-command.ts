import { DomainError } from '@once/domain';
import type { Decider, Message } from '@once/domain';
import { accept, defineDecideHandler, reject } from '@once/idempotency';
import type {
  CommandContext,
  DecideCommandHandler,
  HandlerResponse,
  StreamSnapshot,
} from '@once/idempotency';
import { domainProblem, problemResponse } from '../problems/index.js';

/** Folds a stream snapshot into an aggregate's state. */
export const foldSnapshot = <Command extends Message, Event extends Message, State>(
  decider: Decider<Command, Event, State>,
  snapshot: StreamSnapshot | undefined,
): State =>
  (snapshot?.events ?? []).reduce(
    (state, event) => decider.evolve(state, { type: event.type, data: event.data } as Event),
    decider.initialState(),
  );

/** Runs `decide`, turning a `DomainError` into a rejection value; anything else is a defect and propagates. */
export const decideOrRefuse = <Result>(
  decide: () => Result,
): { ok: true; value: Result } | { ok: false; response: HandlerResponse } => {
  try {
    return { ok: true, value: decide() };
  } catch (error) {
    if (error instanceof DomainError) return { ok: false, response: problemResponse(domainProblem(error)) };
    throw error;
  }
};

export interface AggregateCommandSpec<Input, Command extends Message, Event extends Message, State> {
  readonly decider: Decider<Command, Event, State>;
  readonly stream: (context: CommandContext<Input>) => string;
  /** The domain command: the route's typed command with what the engine adds (ids, time, tenant). */
  readonly command: (context: CommandContext<Input>) => Command;
  /** The success response, from the state after the new events. */
  readonly respond: (
    context: CommandContext<Input>,
    state: State,
    events: readonly Event[],
  ) => HandlerResponse;
  /** How long this route's keys are kept (seconds); the engine's 24 h otherwise. */
  readonly retentionSeconds?: number;
}

/**
 * A keyed command on one aggregate: read its stream, decide with the domain's decider, append the events (atomically
 * with the key where the store can) and answer; a rule violation is a stored problem with no events.
 *
 * @example
 * const serve = aggregateCommand({ decider: orderDecider, stream, command, respond });
 */
export const aggregateCommand = <Input, Command extends Message, Event extends Message, State>(
  spec: AggregateCommandSpec<Input, Command, Event, State>,
): DecideCommandHandler<Input> =>
  defineDecideHandler<Input>({
    ...(spec.retentionSeconds === undefined ? {} : { retentionSeconds: spec.retentionSeconds }),
    streams: (context) => [spec.stream(context)],
    decide: (context, snapshots) => {
      const stream = spec.stream(context);
      const state = foldSnapshot(spec.decider, snapshots.get(stream));
      const decided = decideOrRefuse(() => spec.decider.decide(spec.command(context), state));
      if (!decided.ok) return reject(decided.response);
      const after = decided.value.reduce(spec.decider.evolve, state);
      return accept([{ stream, events: decided.value }], spec.respond(context, after, decided.value));
    },
  });
