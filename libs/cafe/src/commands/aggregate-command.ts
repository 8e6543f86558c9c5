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

/** A stream's state as a decider last folded it, kept on the last event folded (see `foldSnapshot`). */
interface LastFold {
  readonly decider: object;
  /** The first event and the place of the last one in the events folded: the same prefix, when both match. */
  readonly first: object;
  readonly index: number;
  readonly state: unknown;
}
const lastFolds = new WeakMap<object, LastFold>();

/**
 * Folds a stream snapshot into an aggregate's state. The engine hands over a stream it keeps as the same event objects
 * request after request, so the state is kept on the last event folded and the next fold of that stream starts
 * there: a payment folds the events since the last decision, not the whole invoice again (whose `evolve` copies the
 * payments once per event, so a full fold grows with the square of the payments). Deciders never change a state in
 * place, so a kept state is safe to start from.
 */
export const foldSnapshot = <Command extends Message, Event extends Message, State>(
  decider: Decider<Command, Event, State>,
  snapshot: StreamSnapshot | undefined,
): State => {
  const events = snapshot?.events ?? [];
  const [first] = events;
  if (first === undefined) return decider.initialState();
  let state = decider.initialState();
  let from = 0;
  for (let index = events.length - 1; index >= 0; index--) {
    const last = lastFolds.get(events[index] as object);
    if (last?.decider === decider && last.first === first && last.index === index) {
      state = last.state as State;
      from = index + 1;
      break;
    }
  }
  for (const event of events.slice(from)) {
    state = decider.evolve(state, { type: event.type, data: event.data } as Event);
  }
  if (from < events.length) {
    lastFolds.set(events[events.length - 1] as object, { decider, first, index: events.length - 1, state });
  }
  return state;
};

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
