import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { asPaymentId, asTenantId, cardSettlementStream } from '@once/domain';
import type { EventStore } from '@once/event-store';
import { createInMemoryEventStore } from '@once/event-store/in-memory';
import { createIdempotencyEngine } from '@once/idempotency';
import type { CommandDefinition, CommandHandler } from '@once/idempotency';
import type { GatewayCharge, GatewayClient } from '../gateway/gateway-client.js';
import { HttpProblem } from '../problems/index.js';
import { cardPaymentHandler } from './card-payment.handler.js';
import { defaultSettlementRetryPolicy } from './card-payment-workflow.js';
import { issueInvoice, payInvoiceByCard } from './invoice.commands.js';
import { issueInvoiceHandler } from './invoice.handlers.js';

/** A gateway that answers each charge with the next scripted outcome (`unknown`: it never saw the charge). */
const scriptedGateway = (outcomes: ('unknown' | 'succeeded')[]) => {
  const charges: GatewayCharge[] = [];
  const gateway: GatewayClient = {
    charge: async (input) => {
      if (outcomes.shift() === 'unknown')
        throw new HttpProblem('gateway-unavailable', { detail: 'timed out' });
      const charge: GatewayCharge = {
        id: `ch_${String(charges.length + 1)}`,
        reference: input.reference,
        amount: input.amount,
        currency: input.currency,
        status: 'succeeded',
      };
      charges.push(charge);
      return charge;
    },
    inquire: async (reference) => charges.filter((charge) => charge.reference === reference),
  };
  return { gateway, charges };
};

/**
 * The card payment on the engine over the in-memory store (the phased protocol, as on every store), with every
 * stream read recorded, and a store that can fail the append of one key-log plan once.
 */
const setup = (outcomes: ('unknown' | 'succeeded')[]) => {
  let now = Date.parse('2026-12-01T09:00:00.000Z');
  const base = createInMemoryEventStore({ now: () => new Date(now) });
  const reads: string[] = [];
  let failPlanOf: string | undefined;
  const store: EventStore = {
    ...base,
    capabilities: base.capabilities,
    readStream: async (stream, options) => {
      reads.push(stream);
      return base.readStream(stream, options);
    },
    readStreamTails: async (tailReads) => {
      const tails = await base.readStreamTails(tailReads);
      reads.push(
        ...tailReads.filter((_, index) => tails[index]?.skipped !== true).map((read) => read.stream),
      );
      return tails;
    },
    appendToStream: async (stream, events, options) => {
      const plan = events.find((event) => event.type === 'IdempotencyEffectPlanned');
      if (failPlanOf !== undefined && (plan?.data as { point?: string } | undefined)?.point === failPlanOf) {
        failPlanOf = undefined;
        throw new Error('the store failed the append');
      }
      return base.appendToStream(stream, events, options);
    },
  };
  const engine = createIdempotencyEngine({ store, clock: () => now });
  const { gateway, charges } = scriptedGateway(outcomes);
  const handler = cardPaymentHandler({
    gateway,
    faultPoint: () => undefined,
    readStream: (stream) => store.readStream(stream),
    retryPolicy: defaultSettlementRetryPolicy,
    now: () => new Date(now),
  });
  const scope = { tenantId: randomUUID(), actorId: randomUUID() };

  const run = async <Data>(
    definition: CommandDefinition<Data>,
    commandHandler: CommandHandler<Data>,
    key: string,
    input: { params: Record<string, unknown>; body: unknown },
  ) => {
    const data = definition.fromInput(input);
    if (data === undefined) throw new Error(`${definition.type} does not accept the test's input`);
    const { type, version, secretFields } = definition;
    return engine.execute({
      scope,
      key,
      request: { method: 'POST', route: '/test', ...input },
      command: { type, version, data, ...(secretFields ? { secretFields } : {}) },
      handler: commandHandler,
    });
  };

  const issue = async (): Promise<string> => {
    const outcome = await run(issueInvoice, issueInvoiceHandler, randomUUID(), {
      params: {},
      body: { currency: 'EUR', total: 1000 },
    });
    if (outcome.kind !== 'first') throw new Error(`the invoice was not issued: ${outcome.kind}`);
    return (JSON.parse(outcome.response.body) as { id: string }).id;
  };

  const pay = (invoiceId: string, key: string) =>
    run(payInvoiceByCard, handler, key, {
      params: { id: invoiceId },
      body: { method: 'card', amount: 800, currency: 'EUR', cardToken: 'tok_visa' },
    });

  const settlementOf = (payment: string) =>
    cardSettlementStream(asTenantId(scope.tenantId), asPaymentId(payment));

  return {
    reads,
    charges,
    issue,
    pay,
    settlementOf,
    settlementEvents: async (payment: string) =>
      (await base.readStream(settlementOf(payment))).map((event) => event.type),
    failPlanOnce: (point: string) => {
      failPlanOf = point;
    },
    /** Past the lease, so the key's next request takes it over. */
    leaseLater: () => {
      now += 31_000;
    },
  };
};

const paymentIdOf = (outcome: Awaited<ReturnType<ReturnType<typeof setup>['pay']>>): string => {
  if (outcome.kind !== 'first') throw new Error(`the payment did not complete: ${outcome.kind}`);
  return (JSON.parse(outcome.response.body) as { id: string }).id;
};

describe('the card payment and its settlement stream', () => {
  it('a charge the gateway answers at once neither reads nor folds the payment’s settlement stream', async () => {
    const env = setup(['succeeded']);
    const invoiceId = await env.issue();
    env.reads.length = 0;
    const outcome = await env.pay(invoiceId, randomUUID());
    expect(outcome).toMatchObject({ kind: 'first', response: { status: 201 } });
    const paymentId = paymentIdOf(outcome);
    expect(env.reads.some((stream) => stream.includes(invoiceId))).toBe(true);
    expect(env.reads).not.toContain(env.settlementOf(paymentId));
    expect(await env.settlementEvents(paymentId)).toEqual([]);
  });

  it('a payment resumed after an unknown outcome settles the settlement that outcome started', async () => {
    const env = setup(['unknown', 'succeeded']);
    const invoiceId = await env.issue();
    const key = randomUUID();
    expect(await env.pay(invoiceId, key)).toMatchObject({ kind: 'unavailable', reason: 'effects-pending' });
    env.leaseLater();
    const resumed = await env.pay(invoiceId, key);
    expect(resumed).toMatchObject({ kind: 'first', resumed: true, response: { status: 201 } });
    const paymentId = paymentIdOf(resumed);
    expect(await env.settlementEvents(paymentId)).toEqual([
      'CardSettlementStarted',
      'CardSettlementAttemptFailed',
      'CardSettlementSettled',
    ]);
    expect(env.charges).toHaveLength(1);
  });

  it('a resumed charge recorded before its run stopped still settles the settlement on the next run', async () => {
    const env = setup(['unknown', 'succeeded']);
    const invoiceId = await env.issue();
    const key = randomUUID();
    await env.pay(invoiceId, key);
    env.leaseLater();
    // The resumed run charges and records the charge, then cannot plan charge_recorded.
    env.failPlanOnce('charge_recorded');
    expect(await env.pay(invoiceId, key)).toMatchObject({ kind: 'unavailable', reason: 'effects-pending' });
    expect(env.charges).toHaveLength(1);
    env.leaseLater();
    const completed = await env.pay(invoiceId, key);
    expect(completed).toMatchObject({ kind: 'first', resumed: true, response: { status: 201 } });
    expect((await env.settlementEvents(paymentIdOf(completed))).at(-1)).toBe('CardSettlementSettled');
    expect(env.charges).toHaveLength(1);
  });
});
