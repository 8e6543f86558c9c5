import type { EventStore, EventToAppend } from '@once/event-store';

/** What the store answered in place of an append it had committed: as if the network dropped the acknowledgement. */
export class AcknowledgementLost extends Error {
  readonly code = 'acknowledgement-lost';

  constructor(readonly streams: readonly string[]) {
    super(`the acknowledgement of an append to ${streams.join(', ')} was lost after it committed`);
    this.name = 'AcknowledgementLost';
  }
}

export interface LostAppend {
  readonly streams: readonly string[];
  readonly types: readonly string[];
}

export interface LosingAcknowledgement {
  /** Pass to the engine: it commits every append, and throws `AcknowledgementLost` after the `nth` one. */
  readonly store: EventStore;
  /** The append whose acknowledgement was lost (its streams and event types); undefined while fewer than `nth` were made. */
  readonly lost: () => LostAppend | undefined;
}

/**
 * `base`, with the acknowledgement of its `nth` append (`appendToStream` or `appendMulti`, counted together, from 1)
 * lost: the append commits, then the call throws `AcknowledgementLost`, the ambiguous outcome of a network that
 * dropped the answer. Every other append passes through.
 *
 * @example
 * const { store, lost } = losingAcknowledgement(base, 2);
 * const engine = createIdempotencyEngine({ store });
 */
export const losingAcknowledgement = (base: EventStore, nth: number): LosingAcknowledgement => {
  let appends = 0;
  let lost: LostAppend | undefined;
  const afterCommit = <Result>(
    written: readonly { readonly stream: string; readonly events: readonly EventToAppend[] }[],
    result: Result,
  ): Result => {
    appends += 1;
    if (appends !== nth) return result;
    lost = {
      streams: written.map((append) => append.stream),
      types: written.flatMap((append) => append.events.map((event) => event.type)),
    };
    throw new AcknowledgementLost(lost.streams);
  };
  const store: EventStore = {
    ...base,
    capabilities: base.capabilities,
    appendToStream: async (stream, events, options) =>
      afterCommit([{ stream, events }], await base.appendToStream(stream, events, options)),
    appendMulti: async (appends) => afterCommit(appends, await base.appendMulti(appends)),
  };
  return { store, lost: () => lost };
};
