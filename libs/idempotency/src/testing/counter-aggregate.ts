import type { EventStore } from '@once/event-store';
import { defineCommand } from '../commands/index.js';
import type { TypedCommand } from '../commands/index.js';
import { accept, defineDecideHandler, definePhasedHandler, reject } from '../engine/index.js';
import type {
  CommandRequest,
  DecideCommandHandler,
  PhasedCommandHandler,
  StreamSnapshot,
} from '../engine/index.js';

/** The route every counter test uses. */
export const COUNTER_ROUTE = '/counters/:id/increments';

export const counterStream = (counterId: string): string => `counter-${counterId}`;

/** The counter's command: `by` as the client sent it (the handler refuses what is not a positive integer). */
export interface IncrementCounter {
  readonly counterId: string;
  readonly by: unknown;
}

export const incrementCounter = defineCommand<IncrementCounter>({
  type: 'IncrementCounter',
  version: 1,
  fromInput: ({ params, body }) => ({
    counterId: String(params['id']),
    by: typeof body === 'object' && body !== null ? (body as { by?: unknown }).by : undefined,
  }),
});

/** A keyed "increment counter by n" request. */
export const incrementRequest = (counterId: string, by: number): CommandRequest => ({
  method: 'POST',
  route: COUNTER_ROUTE,
  params: { id: counterId },
  body: { by },
});

/** The request and the typed command of "increment counter by n", as a route would build them. */
export const incrementInput = (
  counterId: string,
  by: number,
): { readonly request: CommandRequest; readonly command: TypedCommand<IncrementCounter> } => ({
  request: incrementRequest(counterId, by),
  command: { type: incrementCounter.type, version: incrementCounter.version, data: { counterId, by } },
});

const counterValue = (snapshot: StreamSnapshot | undefined): number =>
  (snapshot?.events ?? [])
    .filter((event) => event.type === 'CounterIncremented')
    .reduce((sum, event) => sum + (event.data as { by: number }).by, 0);

/**
 * A small counter aggregate as a decide handler: `by` must be a positive integer (422 otherwise, stored), and the
 * value may not pass `limit` (409 counter-limit, stored). Each increment event carries the key, so tests can count
 * effects per key.
 */
export const incrementCounterHandler = (
  options: { readonly limit?: number } = {},
): DecideCommandHandler<IncrementCounter> =>
  defineDecideHandler<IncrementCounter>({
    streams: ({ command }) => [counterStream(command.counterId)],
    decide: ({ command, key, ids }, streams) => {
      const { counterId, by } = command;
      const stream = counterStream(counterId);
      if (typeof by !== 'number' || !Number.isInteger(by) || by <= 0) {
        return reject({ status: 422, body: { type: 'invalid-amount', by } });
      }
      const value = counterValue(streams.get(stream));
      if (options.limit !== undefined && value + by > options.limit) {
        return reject({ status: 409, body: { type: 'counter-limit', value } });
      }
      const incrementId = ids.next('increment');
      return accept([{ stream, events: [{ type: 'CounterIncremented', data: { by, key, incrementId } }] }], {
        status: 201,
        body: { counterId, incrementId, value: value + by },
        headers: { location: `/counters/${counterId}`, 'x-not-allow-listed': 'dropped' },
      });
    },
  });

/** An external system with its own idempotency keys and an inquiry call (a stand-in for a card gateway). */
export interface FakeGateway {
  charge(downstreamKey: string, amount: number): Promise<{ chargeId: string; amount: number }>;
  inquire(downstreamKey: string): Promise<{ chargeId: string; amount: number } | undefined>;
  /** How many times each downstream key was charged (the gateway keeps its own first result). */
  readonly charges: ReadonlyMap<string, number>;
  readonly inquiries: number;
}

export const createFakeGateway = (): FakeGateway => {
  const charges = new Map<string, number>();
  const results = new Map<string, { chargeId: string; amount: number }>();
  let inquiries = 0;
  return {
    charges,
    get inquiries() {
      return inquiries;
    },
    charge: async (downstreamKey, amount) => {
      charges.set(downstreamKey, (charges.get(downstreamKey) ?? 0) + 1);
      const result = results.get(downstreamKey) ?? { chargeId: `ch_${results.size + 1}`, amount };
      results.set(downstreamKey, result);
      return result;
    },
    inquire: async (downstreamKey) => {
      inquiries += 1;
      return results.get(downstreamKey);
    },
  };
};

/**
 * The card-payment shape on a counter: reserve (event), charge an external gateway once under a downstream key
 * derived from ours (asking its inquiry call first on resume), record the charge (event), answer 201.
 */
export const chargedIncrementHandler = (gateway: FakeGateway): PhasedCommandHandler<IncrementCounter> =>
  definePhasedHandler<IncrementCounter>({
    run: async (ctx) => {
      const { counterId } = ctx.command;
      const stream = counterStream(counterId);
      const by = Number(ctx.command.by);
      const incrementId = ctx.ids.next('increment');
      const reserved = await ctx.effect('reserved', {
        streams: [stream],
        decide: () =>
          by > 0
            ? {
                kind: 'accept',
                writes: [
                  { stream, events: [{ type: 'CounterReserved', data: { by, key: ctx.key, incrementId } }] },
                ],
                result: incrementId,
              }
            : { kind: 'reject', response: { status: 422, body: { type: 'invalid-amount', by } } },
      });
      if (reserved.kind === 'rejected') return reserved.response;
      const downstreamKey = `increment:${incrementId}`;
      const charge = await ctx.step('charge_requested', async ({ resumed }) => {
        const seen = resumed ? await gateway.inquire(downstreamKey) : undefined;
        return seen ?? (await gateway.charge(downstreamKey, by));
      });
      await ctx.effect('charge_recorded', {
        streams: [stream],
        decide: () => ({
          kind: 'accept',
          writes: [
            {
              stream,
              events: [
                {
                  type: 'CounterIncremented',
                  data: { by, key: ctx.key, incrementId, chargeId: charge.chargeId },
                },
              ],
            },
          ],
          result: null,
        }),
      });
      return { status: 201, body: { counterId, incrementId, chargeId: charge.chargeId } };
    },
  });

/** How many increments each key applied to a counter (the effect count of the exactly-once checks). */
export const countIncrementsByKey = async (
  store: EventStore,
  counterId: string,
): Promise<Map<string, number>> => {
  const counts = new Map<string, number>();
  for (const event of await store.readStream(counterStream(counterId))) {
    if (event.type !== 'CounterIncremented') continue;
    const key = (event.data as { key: string }).key;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
};
