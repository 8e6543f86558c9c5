import { comparePositions, WrongExpectedRevisionError } from '@once/event-store';
import type {
  AppendResult,
  EventStore,
  EventToAppend,
  GlobalPosition,
  StreamAppend,
} from '@once/event-store';

/** The writes one delivery makes: the claim on its inbox stream and the effect on the consumer's own streams. */
export interface InboxWrite {
  /** Recorded on the inbox stream at `no_stream`: that first append is the claim. */
  readonly claim: EventToAppend;
  /** The effect, each with the expected revision it was decided at. Ids must derive from the webhook id. */
  readonly effects: readonly StreamAppend[];
}

/** What became of one delivery in the event store. */
export type StoreInboxReceipt<Decision> =
  | {
      readonly outcome: 'applied';
      readonly decision: Decision;
      /** The latest position the delivery wrote: the token a read of its effect waits for. */
      readonly position: GlobalPosition;
    }
  | { readonly outcome: 'duplicate' };

export interface StoreInboxOptions<Decision> {
  /** The inbox stream of this webhook id, e.g. `inbox-kitchen-<webhook-id>`. */
  readonly inboxStream: string;
  /** Reads what it needs and decides the writes; run again when an effect stream moved meanwhile. */
  readonly decide: () => Promise<{ readonly write: InboxWrite; readonly decision: Decision }>;
  /** How often to decide again after a concurrent write to an effect stream; 5 by default. */
  readonly attempts?: number;
}

/**
 * Applies a webhook's effect exactly once in an event store: the claim (the inbox stream's first event) and the
 * effect are one atomic append, so a redelivery finds the inbox taken and writes nothing. On a store without atomic
 * multi-stream appends (EventStoreDB) the effect goes first, then the claim: a crash between them leaves the claim
 * unwritten, and the redelivery's identical event ids make the effect's second append a no-op.
 *
 * @example
 * const receipt = await receiveWebhookOnceInStore(store, { inboxStream, decide: async () => ({ write, decision }) });
 */
export const receiveWebhookOnceInStore = async <Decision>(
  store: EventStore,
  options: StoreInboxOptions<Decision>,
): Promise<StoreInboxReceipt<Decision>> => {
  const { inboxStream } = options;
  if ((await store.readStream(inboxStream, { maxCount: 1 })).length > 0) return { outcome: 'duplicate' };
  for (let attempt = 1; ; attempt++) {
    const { write, decision } = await options.decide();
    const claim: StreamAppend = { stream: inboxStream, events: [write.claim], expectedRevision: 'no_stream' };
    try {
      const results: AppendResult[] = [];
      if (store.capabilities.atomicMultiStreamAppend) {
        results.push(...(await store.appendMulti([claim, ...write.effects])));
      } else {
        for (const effect of write.effects) {
          results.push(
            await store.appendToStream(effect.stream, effect.events, {
              expectedRevision: effect.expectedRevision,
            }),
          );
        }
        results.push(
          await store.appendToStream(claim.stream, claim.events, { expectedRevision: 'no_stream' }),
        );
      }
      const position = results
        .map((result) => result.position)
        .reduce((a, b) => (comparePositions(a, b) >= 0 ? a : b));
      return { outcome: 'applied', decision, position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (error.stream === inboxStream) return { outcome: 'duplicate' };
      if (attempt >= (options.attempts ?? 5)) throw error;
    }
  }
};
