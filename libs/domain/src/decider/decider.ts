/** A command or an event: a type tag and its data, as Emmett and the event store shape them. */
export interface Message<Type extends string = string, Data = unknown> {
  readonly type: Type;
  readonly data: Data;
}

/**
 * An aggregate's behaviour as three pure functions (Emmett's decider):
 * `decide` turns a command and the current state into new events, or throws a `DomainError` when a rule forbids it;
 * `evolve` folds one event into the state; `initialState` is the state of a stream with no events.
 */
export interface Decider<Command extends Message, Event extends Message, State> {
  readonly decide: (command: Command, state: State) => readonly Event[];
  readonly evolve: (state: State, event: Event) => State;
  readonly initialState: () => State;
}

/**
 * Folds events into a state with a decider's `evolve`, starting from its `initialState`.
 * @example const state = foldEvents(invoiceDecider, recordedEvents.map(({ type, data }) => ({ type, data })));
 */
export const foldEvents = <Command extends Message, Event extends Message, State>(
  decider: Decider<Command, Event, State>,
  events: readonly Event[],
): State => events.reduce(decider.evolve, decider.initialState());
