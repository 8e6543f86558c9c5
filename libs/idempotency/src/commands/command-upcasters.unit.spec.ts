import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createInMemoryEventStore } from '@once/event-store/in-memory';
import { completeAbandonedKeys, createIdempotencyEngine, definePhasedHandler } from '../engine/index.js';
import type { ExecuteInput } from '../engine/index.js';
import { keyStreamName } from '../key-log/index.js';
import { createFaultInjector, createManualClock, InjectedCrash } from '../testing/index.js';
import { bindCommand, commandHandlers, defineCommand } from './command-definition.js';
import type { TypedCommand } from './typed-command.js';
import { upcastCommand } from './command-upcasters.js';

// A tally command as its first release recorded it (an amount in cents), and as the next one does (an amount with
// its currency): version 2 carries the upcaster from version 1.
interface AddToTallyV1 {
  readonly tallyId: string;
  readonly cents: number;
}
interface AddToTallyV2 {
  readonly tallyId: string;
  readonly amount: { readonly minor: number; readonly currency: string };
}

const fromInput = ({ params }: { params: Readonly<Record<string, unknown>> }) => String(params['id']);
const addToTallyV1 = defineCommand<AddToTallyV1>({
  type: 'AddToTally',
  version: 1,
  fromInput: (input) => ({ tallyId: fromInput(input), cents: (input.body as { cents: number }).cents }),
});
const v1ToV2 = (data: unknown): AddToTallyV2 => {
  const v1 = data as AddToTallyV1;
  return { tallyId: v1.tallyId, amount: { minor: v1.cents, currency: 'EUR' } };
};
const addToTallyV2 = defineCommand<AddToTallyV2>({
  type: 'AddToTally',
  version: 2,
  fromInput: (input) => ({ tallyId: fromInput(input), amount: input.body as AddToTallyV2['amount'] }),
  upcasters: { 1: v1ToV2 },
});

const tallyStream = (tallyId: string) => `tally-${tallyId}`;
// Phased, so that a crash after the claim leaves the command to be read again (a decide handler's claim carries its
// plan): the resumed run sees the command as the definition it was bound with has it.
const tallyHandler = <Data>(amountOf: (command: Data) => unknown, tallyIdOf: (command: Data) => string) =>
  definePhasedHandler<Data>({
    run: async (ctx) => {
      const stream = tallyStream(tallyIdOf(ctx.command));
      await ctx.effect('added', {
        streams: [stream],
        decide: () => ({
          kind: 'accept',
          writes: [{ stream, events: [{ type: 'TallyAdded', data: amountOf(ctx.command) }] }],
          result: null,
        }),
      });
      return { status: 201, body: { added: amountOf(ctx.command) } };
    },
  });
const handlerV1 = tallyHandler<AddToTallyV1>(
  (command) => command.cents,
  (command) => command.tallyId,
);
const handlerV2 = tallyHandler<AddToTallyV2>(
  (command) => command.amount,
  (command) => command.tallyId,
);

describe('upcastCommand', () => {
  const v3 = defineCommand<{ readonly tallyId: string; readonly minor: number }>({
    type: 'AddToTally',
    version: 3,
    fromInput: () => undefined,
    upcasters: {
      1: v1ToV2,
      2: (data) => ({ tallyId: (data as AddToTallyV2).tallyId, minor: (data as AddToTallyV2).amount.minor }),
    },
  });
  const recordedV1: TypedCommand = { type: 'AddToTally', version: 1, data: { tallyId: 't1', cents: 250 } };

  it('upcasts a recorded command one version at a time, up to its definition', () => {
    expect(upcastCommand(recordedV1, addToTallyV2)).toEqual({
      type: 'AddToTally',
      version: 2,
      data: { tallyId: 't1', amount: { minor: 250, currency: 'EUR' } },
    });
    expect(upcastCommand(recordedV1, v3)).toEqual({
      type: 'AddToTally',
      version: 3,
      data: { tallyId: 't1', minor: 250 },
    });
  });

  it('leaves a command of the current version as it is', () => {
    const current: TypedCommand = { type: 'AddToTally', version: 1, data: { tallyId: 't1', cents: 250 } };
    expect(upcastCommand(current, addToTallyV1)).toEqual(current);
  });

  it('upcasts nothing where a step is missing, or the command is newer than its definition', () => {
    const withoutStep = { version: 2 };
    expect(upcastCommand(recordedV1, withoutStep)).toBeUndefined();
    expect(upcastCommand({ ...recordedV1, version: 3 }, addToTallyV2)).toBeUndefined();
  });

  it('is what the handlers map answers for a bound command type, and nothing for an unknown one', () => {
    const handlers = commandHandlers([bindCommand(addToTallyV2, handlerV2)]);
    expect(handlers.upcast(recordedV1)).toEqual(upcastCommand(recordedV1, addToTallyV2));
    expect(handlers.upcast({ ...recordedV1, type: 'Unknown' })).toBeUndefined();
  });
});

describe('a claim recorded at an older command version', () => {
  const LEASE_MS = 10_000;
  const setup = () => {
    const store = createInMemoryEventStore();
    const clock = createManualClock();
    const faults = createFaultInjector();
    const engine = createIdempotencyEngine({
      store,
      clock: clock.now,
      leaseMs: LEASE_MS,
      faults: faults.hook,
    });
    const scope = { tenantId: randomUUID(), actorId: randomUUID() };
    const key = randomUUID();
    const tallyId = randomUUID();
    const input: ExecuteInput<AddToTallyV1> = {
      scope,
      key,
      request: { method: 'POST', route: '/tallies/:id', params: { id: tallyId }, body: { cents: 250 } },
      command: { type: addToTallyV1.type, version: addToTallyV1.version, data: { tallyId, cents: 250 } },
      handler: handlerV1,
    };
    return { store, clock, faults, engine, input, keyStream: keyStreamName(scope, key), tallyId };
  };

  /** The key claimed by a build that knew version 1 only, which then crashed: the claim records version 1. */
  const claimedAtV1 = async (context: ReturnType<typeof setup>) => {
    context.faults.arm('after-claim');
    await expect(context.engine.execute(context.input)).rejects.toBeInstanceOf(InjectedCrash);
    const [claim] = await context.store.readStream(context.keyStream);
    expect(claim?.data).toMatchObject({ commandType: 'AddToTally', commandVersion: 1 });
    context.clock.advance(LEASE_MS);
  };

  it('is resumed by the completer as the current version, through its upcaster', async () => {
    const context = setup();
    await claimedAtV1(context);
    const handlers = commandHandlers([bindCommand(addToTallyV2, handlerV2)]);
    const [result] = await completeAbandonedKeys({
      engine: context.engine,
      handlers,
      candidates: [context.keyStream],
    });
    expect(result).toMatchObject({ outcome: { kind: 'first', resumed: true, response: { status: 201 } } });
    const tally = await context.store.readStream(tallyStream(context.tallyId));
    expect(tally.map((event) => event.data)).toEqual([{ minor: 250, currency: 'EUR' }]);
  });

  it('is passed over, and reported, where no upcaster leads from its version', async () => {
    const context = setup();
    await claimedAtV1(context);
    const withoutUpcaster = defineCommand<AddToTallyV2>({ ...addToTallyV2, upcasters: {} });
    const handlers = commandHandlers([bindCommand(withoutUpcaster, handlerV2)]);
    expect(
      await completeAbandonedKeys({ engine: context.engine, handlers, candidates: [context.keyStream] }),
    ).toEqual([{ keyStream: context.keyStream, skipped: 'no-handler', commandType: 'AddToTally' }]);
    expect(await context.store.readStream(tallyStream(context.tallyId))).toEqual([]);
  });
});
