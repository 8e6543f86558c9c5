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

const inquire = async (reference: string) =>
  ((await (await fetch(`${env.gateway.url}/charges?reference=${reference}`)).json()) as { charges: Charge[] })
    .charges;

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

/** The reserved payment's id, as the invoice shows it. */
const paymentIdOf = async (invoiceId: string): Promise<string> => {
  const invoice = (await env.http.get(`/invoices/${invoiceId}`, env.tenant.alice)).json<{
    payments: { id: string }[];
  }>();
  return invoice.payments[0]?.id ?? '';
};
