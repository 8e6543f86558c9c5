import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  cardPayment,
  cashPayment,
  expectCardCapturedOnce,
  expectConcurrentDuplicatesOnce,
  expectKeyReuseRefused,
  invoiceCalls,
  useGatewayTestApi,
} from '../testing/index.js';

const env = useGatewayTestApi();

const calls = (apiKey = env.tenant.alice) =>
  invoiceCalls(env.http, apiKey, env.gateway.url, env.gatewayApiToken);
const issueInvoice = (total = 1000, apiKey = env.tenant.alice) => calls(apiKey).issueInvoice(total);
const payCash = (invoiceId: string, amount: number, key: string, apiKey = env.tenant.alice) =>
  calls(apiKey).pay(invoiceId, key, cashPayment(amount));
const invoice = (invoiceId: string, apiKey = env.tenant.alice) => calls(apiKey).invoice(invoiceId);

describe('the article suite', () => {
  it('replays a duplicate with the same status and a byte-identical body', async () => {
    const invoiceId = await issueInvoice();
    const key = randomUUID();
    const first = await payCash(invoiceId, 400, key);
    const second = await payCash(invoiceId, 400, key);
    expect(first.status).toBe(201);
    expect(second.status).toBe(first.status);
    expect(second.text).toBe(first.text);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    expect((await invoice(invoiceId)).payments).toHaveLength(1);
    const metrics = (await env.http.get('/metrics')).text;
    for (const outcome of ['first', 'replay']) {
      expect(metrics).toMatch(
        new RegExp(
          `once_idempotency_outcomes_total\\{route="/invoices/:id/payments",outcome="${outcome}"\\} [1-9]`,
        ),
      );
    }
  });

  it('refuses the same key with a different body (422) and does nothing', async () => {
    await expectKeyReuseRefused(calls());
  });

  it('turns 10 concurrent duplicates into one payment, answering only 201 or 409', async () => {
    await expectConcurrentDuplicatesOnce(calls());
  });

  it("never replays user A's response to user B with the same key", async () => {
    const invoiceId = await issueInvoice();
    const key = randomUUID();
    const byAlice = await payCash(invoiceId, 200, key, env.tenant.alice);
    const byBob = await payCash(invoiceId, 200, key, env.tenant.bob);
    expect(byAlice.status).toBe(201);
    expect(byBob.status).toBe(201);
    expect(byBob.headers.get('idempotent-replayed')).toBeNull();
    expect(byBob.json()['id']).not.toBe(byAlice.json()['id']);
    expect((await invoice(invoiceId)).payments).toHaveLength(2);
  });
});

describe('state guards', () => {
  it('refuses an overpayment with a stored 422 that is replayed', async () => {
    const invoiceId = await issueInvoice(1000);
    const key = randomUUID();
    const first = await payCash(invoiceId, 1001, key);
    expect(first.status).toBe(422);
    expect(first.headers.get('content-type')).toContain('application/problem+json');
    expect(first.json()).toMatchObject({
      type: '/problems/payment-exceeds-balance',
      data: { outstanding: { amount: 1000 } },
    });
    const again = await payCash(invoiceId, 1001, key);
    expect(again.status).toBe(422);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await invoice(invoiceId)).toMatchObject({ paid: 0, payments: [] });
  });

  it('never lets two payments together exceed the balance', async () => {
    const invoiceId = await issueInvoice(1000);
    const answers = await Promise.all([
      payCash(invoiceId, 600, randomUUID()),
      payCash(invoiceId, 600, randomUUID()),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 422]);
    expect(await invoice(invoiceId)).toMatchObject({ paid: 600, outstanding: 400 });
  });
});

describe('tenancy', () => {
  it("answers 404 for another tenant's invoice, for reads and writes", async () => {
    const invoiceId = await issueInvoice();
    const other = await env.api.tenant();
    expect((await env.http.get(`/invoices/${invoiceId}`, other.alice)).status).toBe(404);
    const payment = await payCash(invoiceId, 100, randomUUID(), other.alice);
    expect(payment.status).toBe(404);
    expect(payment.json()).toMatchObject({ type: '/problems/invoice-not-found' });
    expect((await invoice(invoiceId)).payments).toHaveLength(0);
  });

  it('refuses a missing or unknown API key', async () => {
    const missing = await env.http.get(`/invoices/${randomUUID()}`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toContain('Bearer');
    expect((await env.http.get(`/invoices/${randomUUID()}`, 'once_not_a_key')).status).toBe(401);
  });
});

describe('card payments through the gateway', () => {
  const payCard = (invoiceId: string, amount: number, key: string, cardToken = 'tok_visa') =>
    calls().pay(invoiceId, key, cardPayment(amount, cardToken));

  it('captures a card payment once and replays it', async () => {
    await expectCardCapturedOnce(calls());
  });

  it('stores a decline as 402 and frees the reserved amount', async () => {
    const invoiceId = await issueInvoice();
    const declined = await payCard(invoiceId, 700, randomUUID(), 'tok_declined');
    expect(declined.status).toBe(402);
    expect(declined.json()).toMatchObject({
      type: '/problems/card-declined',
      payment: { status: 'declined' },
    });
    expect(await invoice(invoiceId)).toMatchObject({ paid: 0, reserved: 0, outstanding: 1000 });
  });
});

describe('reads', () => {
  it('finds a payment by id once the read model has it, only for its own tenant', async () => {
    const invoiceId = await issueInvoice();
    const paid = await payCash(invoiceId, 250, randomUUID());
    const paymentId = paid.json<{ id: string }>().id;
    await expect
      .poll(async () => (await env.http.get(`/payments/${paymentId}`, env.tenant.alice)).status)
      .toBe(200);
    expect((await env.http.get(`/payments/${paymentId}`, env.tenant.alice)).json()).toEqual(paid.json());
    const other = await env.api.tenant();
    expect((await env.http.get(`/payments/${paymentId}`, other.alice)).status).toBe(404);
  });

  it("shows the caller's own key and nobody else's", async () => {
    const invoiceId = await issueInvoice();
    const key = randomUUID();
    await payCash(invoiceId, 100, key);
    const own = await env.http.get(`/idempotency-keys/${key}`, env.tenant.alice);
    expect(own.json()).toEqual({
      key,
      status: 'completed',
      method: 'POST',
      route: '/invoices/:id/payments',
      responseStatus: 201,
    });
    expect((await env.http.get(`/idempotency-keys/${key}`, env.tenant.bob)).status).toBe(404);
  });
});
