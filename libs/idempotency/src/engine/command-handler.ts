import type { RecordedEvent, StreamRevision } from '@once/event-store';
import type { IdempotencyScope } from '../ids/index.js';

/** The request as the fingerprint sees it: method, route template, params and body. */
export interface CommandRequest {
  readonly method: string;
  /** The route template (`/invoices/:id/payments`), not the concrete path. */
  readonly route: string;
  /** Path parameters (JSON values). */
  readonly params: Readonly<Record<string, unknown>>;
  /** The validated body (a JSON value). */
  readonly body: unknown;
}

/** What a handler answers. A string body is sent (and stored) as is; anything else is sent as JSON text. */
export interface HandlerResponse {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A stream as read for a decision. */
export interface StreamSnapshot {
  readonly stream: string;
  readonly events: readonly RecordedEvent[];
  /** The revision the decision is made at: where the new events will be appended. */
  readonly revision: StreamRevision | 'no_stream';
}

/** A new domain event, without its ID: the engine derives it from the key, the stream and the event's index. */
export interface NewEvent {
  readonly type: string;
  readonly data: unknown;
  readonly metadata?: Record<string, unknown>;
}

export interface StreamWrite {
  readonly stream: string;
  readonly events: readonly NewEvent[];
}

/** Deterministic IDs for entities a command creates: the same command always gets the same IDs. */
export interface CommandIds {
  /** The `index`-th ID for `purpose` (e.g. `ids.next('payment')`): a UUIDv5 of the key's scope, purpose and index. */
  next(purpose: string, index?: number): string;
}

/** Everything a handler may use to decide. Time and IDs come from here, never from the wall clock or randomness. */
export interface CommandContext<Command = unknown> {
  readonly scope: IdempotencyScope;
  readonly key: string;
  /** The typed command, as the route built it (or as the key log recorded it, on a resume). */
  readonly command: Command;
  /** When the key was claimed; a resumed command sees the same time. */
  readonly requestedAt: Date;
  readonly ids: CommandIds;
}

/**
 * A decision: accept (events to append, and the response to give once they are appended) or reject with a
 * deterministic business answer (stored and replayed like a success, with no domain events).
 */
export type CommandDecision =
  | { readonly kind: 'accept'; readonly writes: readonly StreamWrite[]; readonly response: HandlerResponse }
  | { readonly kind: 'reject'; readonly response: HandlerResponse };

/**
 * A handler whose effects are all events in our own store: read some streams, decide, append. The engine runs it
 * in one atomic append (key + events) where the store can, and in the phased protocol elsewhere.
 */
export interface DecideCommandHandler<Command = unknown> {
  readonly kind: 'decide';
  /** The streams to read before deciding. */
  readonly streams: (context: CommandContext<Command>) => readonly string[];
  /** Pure: the decision from the command and the streams (keyed by name). Throw only for defects. */
  readonly decide: (
    context: CommandContext<Command>,
    streams: ReadonlyMap<string, StreamSnapshot>,
  ) => CommandDecision;
  /** How long this route's keys are kept (seconds); the engine default otherwise. */
  readonly retentionSeconds?: number;
}

/** One effect of a phased handler: the streams to read and a pure decision over them. */
export interface EffectSpec<Result> {
  readonly streams: readonly string[];
  readonly decide: (streams: ReadonlyMap<string, StreamSnapshot>) => EffectDecision<Result>;
}

export type EffectDecision<Result> =
  | { readonly kind: 'accept'; readonly writes: readonly StreamWrite[]; readonly result: Result }
  | { readonly kind: 'reject'; readonly response: HandlerResponse };

export type EffectOutcome<Result> =
  | { readonly kind: 'applied'; readonly result: Result }
  | { readonly kind: 'rejected'; readonly response: HandlerResponse };

/** What a phased handler can do besides deciding: effects and external steps, each recorded in the key log. */
export interface PhasedCommandContext<Command = unknown> extends CommandContext<Command> {
  /**
   * Decides and appends domain events once, fenced by the key's lease: the plan (revision read, event IDs,
   * result) is recorded in the key log before the events are appended, and a resumed command re-appends exactly
   * that plan instead of deciding again. `result` must be a JSON value.
   */
  effect<Result>(name: string, spec: EffectSpec<Result>): Promise<EffectOutcome<Result>>;
  /**
   * Runs an external call at most once per recorded outcome: its result (a JSON value) is recorded as a recovery
   * point, and a resumed command gets the recorded result without calling again. `resumed` is true when an earlier
   * holder started this step and never recorded its result: the call may or may not have happened, so ask the
   * other side (an inquiry call) before calling again with the same downstream key.
   */
  step<Result>(
    name: string,
    run: (attempt: { readonly resumed: boolean }) => Promise<Result>,
  ): Promise<Result>;
}

/**
 * A handler with external calls or several effects: run from the top on every resume, calling `effect` and `step`
 * in the same order each time (recorded ones return at once). Its response is stored once it returns: a 2xx or a
 * deterministic 4xx. A 5xx is not stored: the key is released if nothing was applied yet, otherwise it stays in
 * flight and the next holder resumes it.
 */
export interface PhasedCommandHandler<Command = unknown> {
  readonly kind: 'phased';
  readonly run: (context: PhasedCommandContext<Command>) => Promise<HandlerResponse>;
  readonly retentionSeconds?: number;
}

export type CommandHandler<Command = unknown> = DecideCommandHandler<Command> | PhasedCommandHandler<Command>;

/**
 * Declares a handler whose effects are events in our store (docs/ARCHITECTURE.md "The atomic protocol").
 *
 * @example
 * const increment = defineDecideHandler<{ counterId: string }>({
 *   streams: ({ command }) => [`counter-${command.counterId}`],
 *   decide: ({ command }, streams) => {
 *     const stream = `counter-${command.counterId}`;
 *     const value = streams.get(stream)?.events.length ?? 0;
 *     return value >= 10
 *       ? reject({ status: 409, body: { type: 'counter-full' } })
 *       : accept([{ stream, events: [{ type: 'CounterIncremented', data: { by: 1 } }] }], {
 *           status: 201,
 *           body: { value: value + 1 },
 *         });
 *   },
 * });
 */
export const defineDecideHandler = <Command>(
  handler: Omit<DecideCommandHandler<Command>, 'kind'>,
): DecideCommandHandler<Command> => ({
  kind: 'decide',
  ...handler,
});

/**
 * Declares a handler with external calls (docs/ARCHITECTURE.md "The phased protocol"). The card-payment shape:
 *
 * @example
 * const pay = definePhasedHandler<{ invoiceId: string }>({
 *   run: async (ctx) => {
 *     const paymentId = ctx.ids.next('payment');
 *     const invoice = `invoice-${ctx.command.invoiceId}`;
 *     const reserved = await ctx.effect('payment_reserved', {
 *       streams: [invoice],
 *       decide: () => ({ kind: 'accept', writes: [{ stream: invoice, events: [{ type: 'PaymentRequested', data: { paymentId } }] }], result: paymentId }),
 *     });
 *     if (reserved.kind === 'rejected') return reserved.response;
 *     const charge = await ctx.step('charge_requested', async ({ resumed }) => {
 *       const downstreamKey = `payment:${paymentId}`;
 *       const seen = resumed ? await Promise.resolve(undefined) : undefined; // gateway.inquire(downstreamKey)
 *       return seen ?? { approved: true, downstreamKey }; // gateway.charge({ key: downstreamKey, ... })
 *     });
 *     await ctx.effect('charge_recorded', {
 *       streams: [invoice],
 *       decide: () => ({ kind: 'accept', writes: [{ stream: invoice, events: [{ type: 'PaymentCaptured', data: { paymentId, charge } }] }], result: null }),
 *     });
 *     return { status: 201, body: { paymentId } };
 *   },
 * });
 */
export const definePhasedHandler = <Command>(
  handler: Omit<PhasedCommandHandler<Command>, 'kind'>,
): PhasedCommandHandler<Command> => ({
  kind: 'phased',
  ...handler,
});

/** An accepting decision. */
export const accept = (writes: readonly StreamWrite[], response: HandlerResponse): CommandDecision => ({
  kind: 'accept',
  writes,
  response,
});

/** A deterministic business rejection: stored and replayed, no domain events. */
export const reject = (response: HandlerResponse): CommandDecision => ({ kind: 'reject', response });
