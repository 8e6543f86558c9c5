import assert from 'node:assert/strict';
import type { Decider, Message } from '../decider/index.js';
import { DomainError } from '../errors/index.js';

/** A DomainError subclass, as passed to `then` to expect a rejection. */
export type DomainErrorClass = abstract new (...args: never[]) => DomainError;

export interface DeciderWhen<Event> {
  /**
   * Expects `decide` to return exactly these events (and `evolve` to accept them), or to throw this DomainError
   * class, optionally with exactly this `data`.
   */
  then(expected: readonly Event[] | DomainErrorClass, expectedData?: object): void;
}

export interface DeciderGiven<Command, Event> {
  when(command: Command): DeciderWhen<Event>;
}

/**
 * Given/when/then specifications for a decider, in Emmett's style.
 *
 * @example
 * const given = deciderSpecification(invoiceDecider);
 * given([invoiceIssued]).when(recordPayment).then([paymentRecorded]);
 * given([invoiceIssued]).when(overpayment).then(PaymentExceedsBalance);
 */
export const deciderSpecification =
  <Command extends Message, Event extends Message, State>(decider: Decider<Command, Event, State>) =>
  (givenEvents: readonly Event[]): DeciderGiven<Command, Event> => ({
    when: (command) => ({
      then: (expected, expectedData) => {
        const state = givenEvents.reduce(decider.evolve, decider.initialState());
        let events: readonly Event[];
        try {
          events = decider.decide(command, state);
        } catch (error) {
          if (typeof expected !== 'function') throw error;
          assert.ok(
            error instanceof expected,
            `expected ${expected.name}, but decide threw ${error instanceof Error ? error.name : String(error)}`,
          );
          if (expectedData !== undefined) assert.deepStrictEqual(error.data, expectedData);
          return;
        }
        if (typeof expected === 'function') {
          assert.fail(`expected ${expected.name}, but decide returned ${JSON.stringify(events)}`);
        }
        assert.deepStrictEqual(events, expected);
        events.reduce(decider.evolve, state);
      },
    }),
  });

/** What running a sequence of commands produced: the events, the state, and the commands that were refused. */
export interface CommandRun<Command, Event, State> {
  readonly events: readonly Event[];
  readonly state: State;
  readonly rejections: readonly { readonly command: Command; readonly error: DomainError }[];
}

/**
 * Decides each command against the state so far and folds the accepted events; a DomainError refuses that
 * command only (as a real caller would see), any other error propagates. For property tests over command sequences.
 *
 * @example
 * const { events, rejections } = runCommands(orderDecider, [place, serve, complete, complete]);
 */
export const runCommands = <Command extends Message, Event extends Message, State>(
  decider: Decider<Command, Event, State>,
  commands: readonly Command[],
): CommandRun<Command, Event, State> => {
  const events: Event[] = [];
  const rejections: { command: Command; error: DomainError }[] = [];
  let state = decider.initialState();
  for (const command of commands) {
    try {
      const decided = decider.decide(command, state);
      events.push(...decided);
      state = decided.reduce(decider.evolve, state);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      rejections.push({ command, error });
    }
  }
  return { events, state, rejections };
};
