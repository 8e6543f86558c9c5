import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, webhookHeaders } from '@once/webhooks';
import { useGatewayTestApi } from '../testing/index.js';

const secret = generateWebhookSecret();
const env = useGatewayTestApi({ gatewayWebhookSecret: secret, leaseMs: 500 });

interface Charge {
  id: string;
  reference: string;
  amount: number;
  currency: string;
  status: string;
}

const deliver = (charge: Charge, options: { eventId?: string; timestamp?: number; sign?: string } = {}) => {
  const eventId = options.eventId ?? `evt_${charge.id}`;
  const body = JSON.stringify({
    id: eventId,
    type: 'charge.succeeded',
    createdAt: new Date().toISOString(),
    data: charge,
  });
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  return env.http.post('/webhooks/gateway', {
    raw: body,
    headers: { ...webhookHeaders([options.sign ?? secret], { id: eventId, timestamp, body }) },
  });
};

const inquire = async (reference: string) => (await env.charges(reference)) as Charge[];

/** The signed delivery of any body, as the gateway would send it. */
const deliverRaw = (raw: string, id = 'evt_raw') =>
  env.http.post('/webhooks/gateway', {
    raw,
    headers: { ...webhookHeaders([secret], { id, timestamp: Math.floor(Date.now() / 1000), body: raw }) },
  });

const issueInvoice = async () =>
  (
    await env.http.post('/invoices', {
      apiKey: env.tenant.alice,
      key: randomUUID(),
      body: { currency: 'EUR', total: 2000 },
    })
  ).json<{ id: string }>().id;

describe('gateway webhooks', () => {
  it('records a charge whose response was lost, once, and the retry of the payment agrees', async () => {
    const invoiceId = await issueInvoice();
    const armed = await fetch(`${env.gateway.url}/admin/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: 'charge', fault: { kind: 'lost-response' } }),
    });
    expect(armed.status).toBe(201);
    const key = randomUUID();
    const body = { method: 'card', amount: 1500, currency: 'EUR', cardToken: 'tok_visa' };
    const lost = await env.http.post(`/invoices/${invoiceId}/payments`, {
      apiKey: env.tenant.alice,
      key,
      body,
    });
    expect(lost.status).toBe(503);
    expect(lost.json()).toMatchObject({ type: '/problems/gateway-unavailable' });
    expect(lost.headers.get('retry-after')).not.toBeNull();
    expect((await env.http.get(`/invoices/${invoiceId}`, env.tenant.alice)).json()).toMatchObject({
      reserved: 1500,
      paid: 0,
    });

    const state = await env.http.get(`/idempotency-keys/${key}`, env.tenant.alice);
    expect(state.json()).toMatchObject({ status: 'in_flight' });
    const [charge] = await inquire(await paymentIdOf(invoiceId));
    expect(charge).toBeDefined();

    expect((await deliver(charge as Charge)).json()).toEqual({ outcome: 'applied' });
    expect((await deliver(charge as Charge)).json()).toEqual({ outcome: 'duplicate' });
    expect((await env.http.get(`/invoices/${invoiceId}`, env.tenant.alice)).json()).toMatchObject({
      reserved: 0,
      paid: 1500,
    });

    let retried = await env.http.post(`/invoices/${invoiceId}/payments`, {
      apiKey: env.tenant.alice,
      key,
      body,
    });
    for (let attempt = 0; retried.status === 409 && attempt < 50; attempt++) {
      await sleep(100);
      retried = await env.http.post(`/invoices/${invoiceId}/payments`, {
        apiKey: env.tenant.alice,
        key,
        body,
      });
    }
    expect(retried.status).toBe(201);
    expect(retried.json()).toMatchObject({ status: 'captured', gatewayReference: (charge as Charge).id });
    expect(await inquire((charge as Charge).reference)).toHaveLength(1);
    expect((await env.http.get(`/invoices/${invoiceId}`, env.tenant.alice)).json()).toMatchObject({
      paid: 1500,
      payments: [expect.anything()],
    });
  });

  it('refuses a bad signature, a stale timestamp and an id that does not match the body', async () => {
    const charge = { id: 'ch_x', reference: randomUUID(), amount: 1, currency: 'EUR', status: 'succeeded' };
    expect((await deliver(charge, { sign: generateWebhookSecret() })).status).toBe(401);
    expect((await deliver(charge, { timestamp: Math.floor(Date.now() / 1000) - 3600 })).status).toBe(401);
    const mismatched = await env.http.post('/webhooks/gateway', {
      raw: JSON.stringify({ id: 'evt_a', type: 'charge.succeeded', createdAt: '', data: charge }),
      headers: {
        'webhook-id': 'evt_b',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,x',
      },
    });
    expect(mismatched.status).toBe(401);
    expect(mismatched.json()).toMatchObject({ type: '/problems/invalid-signature' });
  });
});

/** A card payment of 1,500 whose charge answer was lost: reserved on the invoice, charged at the gateway. */
const lostCharge = async () => {
  const invoiceId = await issueInvoice();
  await env.arm('charge', { kind: 'lost-response' });
  const key = randomUUID();
  const body = { method: 'card', amount: 1500, currency: 'EUR', cardToken: 'tok_visa' };
  const lost = await env.http.post(`/invoices/${invoiceId}/payments`, {
    apiKey: env.tenant.alice,
    key,
    body,
  });
  expect(lost.status).toBe(503);
  const paymentId = await paymentIdOf(invoiceId);
  const [charge] = await inquire(paymentId);
  if (!charge) throw new Error('the gateway made no charge');
  expect(charge).toMatchObject({ amount: 1500, currency: 'EUR' });
  return {
    invoiceId,
    paymentId,
    charge,
    retry: () => env.http.post(`/invoices/${invoiceId}/payments`, { apiKey: env.tenant.alice, key, body }),
  };
};

describe('gateway webhooks, signature first', () => {
  it('answers a caller without a valid signature 401 before reading the body, whatever the body is', async () => {
    const junk = [
      '{not json',
      '{"id":1}',
      JSON.stringify({ id: 'evt_1', type: 'charge.refunded', data: {} }),
      '',
    ];
    for (const raw of junk) {
      const unsigned = await env.http.post('/webhooks/gateway', { raw, headers: {} });
      expect(unsigned.status).toBe(401);
      expect(unsigned.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(unsigned.json()).toEqual(
        expect.objectContaining({ type: '/problems/invalid-signature', detail: 'missing-headers' }),
      );
      expect(unsigned.json()).not.toHaveProperty('errors');
      const forged = await env.http.post('/webhooks/gateway', {
        raw,
        headers: {
          ...webhookHeaders([generateWebhookSecret()], {
            id: 'evt_1',
            timestamp: Math.floor(Date.now() / 1000),
            body: raw,
          }),
        },
      });
      expect(forged.status).toBe(401);
      expect(forged.json()).toMatchObject({
        type: '/problems/invalid-signature',
        detail: 'invalid-signature',
      });
    }
  });

  it('parses strictly and validates only a signed body: 400 for bad JSON or a body that is not an event', async () => {
    const notJson = await deliverRaw('{not json');
    expect(notJson.status).toBe(400);
    expect(notJson.json()).toMatchObject({ type: '/problems/invalid-json' });
    const duplicateKeys = await deliverRaw('{"id":"evt_raw","id":"evt_raw"}');
    expect(duplicateKeys.json()).toMatchObject({ type: '/problems/invalid-json', reason: 'duplicate-key' });
    const notAnEvent = await deliverRaw(JSON.stringify({ id: 'evt_raw', type: 'charge.refunded' }));
    expect(notAnEvent.status).toBe(400);
    expect(notAnEvent.json()).toMatchObject({
      type: '/problems/invalid-request',
      errors: expect.arrayContaining([expect.objectContaining({ pointer: '/type' })]),
    });
  });
});

describe('gateway webhooks, amount and currency', () => {
  it('records a charge of another amount or currency without applying it, and the payment needs attention', async () => {
    const { invoiceId, paymentId, charge, retry } = await lostCharge();
    const inflated = { ...charge, amount: 1600 };
    expect((await deliver(inflated)).json()).toEqual({ outcome: 'mismatched' });
    expect((await deliver(inflated)).json()).toEqual({ outcome: 'duplicate' });
    expect(
      (await deliver({ ...charge, currency: 'USD' }, { eventId: `evt_${charge.id}_usd` })).json(),
    ).toEqual({ outcome: 'mismatched' });
    expect((await env.http.get(`/invoices/${invoiceId}`, env.tenant.alice)).json()).toMatchObject({
      reserved: 1500,
      paid: 0,
    });

    const flagged = expect.objectContaining({
      id: paymentId,
      invoiceId,
      amount: 1500,
      currency: 'EUR',
      gatewayCharged: { amount: 1500, currency: 'USD' },
      lastError: `the gateway charged 1500 USD (${charge.id}) for 1500 EUR reserved`,
    });
    expect((await env.http.get('/payments/needing-attention', env.tenant.alice)).json()).toEqual({
      payments: expect.arrayContaining([flagged]),
    });
    expect((await env.http.get('/ops/payments/needing-attention', env.tenant.olga)).json()).toEqual({
      payments: [
        expect.objectContaining({
          id: paymentId,
          status: 'needs-attention',
          gatewayCharged: { amount: 1500, currency: 'USD' },
        }),
      ],
    });
    // The client's retry is not the way out: an operator resolves the payment. Until the lost attempt's lease ends,
    // a retry is answered 409 (in progress).
    let retried = await retry();
    await expect.poll(async () => (retried = await retry()).status, { timeout: 10_000 }).toBe(424);
    expect(retried.json()).toMatchObject({ type: '/problems/payment-needs-attention', paymentId });
    expect((await env.http.get(`/invoices/${invoiceId}`, env.tenant.alice)).json()).toMatchObject({
      reserved: 1500,
      paid: 0,
    });
  });

  it("applies a charge whose amount and currency are the reservation's", async () => {
    const { invoiceId, paymentId, charge } = await lostCharge();
    expect((await deliver(charge)).json()).toEqual({ outcome: 'applied' });
    expect((await env.http.get(`/invoices/${invoiceId}`, env.tenant.alice)).json()).toMatchObject({
      reserved: 0,
      paid: 1500,
    });
    const listed = (await env.http.get('/payments/needing-attention', env.tenant.alice)).json<{
      payments: { id: string }[];
    }>();
    expect(listed.payments.map((payment) => payment.id)).not.toContain(paymentId);
  });
});

/** The reserved payment's id, as the invoice shows it. */
const paymentIdOf = async (invoiceId: string): Promise<string> => {
  const invoice = (await env.http.get(`/invoices/${invoiceId}`, env.tenant.alice)).json<{
    payments: { id: string }[];
  }>();
  return invoice.payments[0]?.id ?? '';
};
