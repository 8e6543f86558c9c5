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

/** Where a decider last folded a stream: the last event folded, its place in the events, and the state there. */
interface LastFold {
  readonly last: object;
  readonly index: number;
  readonly state: unknown;
}
/**
 * The last fold of each stream (keyed by its first event object), per decider. One fold a stream and decider, each
 * fold replacing the one before: a state kept on every event folded would keep as many states of a stream as it has
 * events, each as big as its prefix (an invoice's payments), so a process's memory would grow with the square of
 * the payments.
 */
const lastFolds = new WeakMap<object, WeakMap<object, LastFold>>();

/**
 * Folds a stream snapshot into an aggregate's state. The engine hands over a stream it keeps as the same event objects
 * request after request, so the state of the last fold is kept and the next fold of that stream starts there when it
 * holds the same objects up to that place: a payment folds the events since the last decision, not the whole invoice
 * again (whose `evolve` copies the payments once per event, so a full fold grows with the square of the payments).
 * Deciders never change a state in place, so a kept state is safe to start from.
 */
export const foldSnapshot = <Command extends Message, Event extends Message, State>(
  decider: Decider<Command, Event, State>,
  snapshot: StreamSnapshot | undefined,
): State => {
  const events = snapshot?.events ?? [];
  const [first] = events;
  if (first === undefined) return decider.initialState();
  let folds = lastFolds.get(first);
  if (folds === undefined) {
    folds = new WeakMap();
    lastFolds.set(first, folds);
  }
  const last = folds.get(decider);
  const resumes = last !== undefined && events[last.index] === last.last;
  let state = resumes ? (last.state as State) : decider.initialState();
  const from = resumes ? last.index + 1 : 0;
  for (const event of events.slice(from)) {
    state = decider.evolve(state, { type: event.type, data: event.data } as Event);
  }
  if (from < events.length) {
    folds.set(decider, { last: events[events.length - 1] as object, index: events.length - 1, state });
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
