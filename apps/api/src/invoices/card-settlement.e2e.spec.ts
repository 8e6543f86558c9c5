import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '@once/event-store';
import { shortGatewayTimings, useGatewayTestApi } from '../testing/index.js';

// Three attempts a few hundred milliseconds apart instead of eight over ten minutes.
const env = useGatewayTestApi({
  ...shortGatewayTimings,
  cardSettlementRetryPolicy: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 200 },
});

const issueInvoice = async () =>
  (
    await env.http.post('/invoices', {
      apiKey: env.tenant.alice,
      key: randomUUID(),
      body: { currency: 'EUR', total: 1000 },
    })
  ).json<{ id: string }>().id;

const payByCard = (invoiceId: string, key: string, cardToken = 'tok_visa') =>
  env.http.post(`/invoices/${invoiceId}/payments`, {
    apiKey: env.tenant.alice,
    key,
    body: { method: 'card', amount: 800, currency: 'EUR', cardToken },
  });

const resolve = (paymentId: string, apiKey: string, action: string, key = randomUUID()) =>
  env.http.post(`/payments/${paymentId}/resolve`, {
    apiKey,
    key,
    body: { action, note: 'checked the terminal' },
  });

const invoice = async (invoiceId: string) =>
  (await env.http.get(`/invoices/${invoiceId}`, env.tenant.alice)).json<{ paid: number; reserved: number }>();

/** Waits until the completer gave up on the key: its stored answer is `payment-needs-attention`. */
const untilNeedsAttention = async (invoiceId: string, key: string) => {
  await expect
    .poll(async () => (await env.http.get(`/idempotency-keys/${key}`, env.tenant.alice)).json(), {
      timeout: 30_000,
    })
    .toMatchObject({ status: 'completed', responseStatus: 424 });
  return payByCard(invoiceId, key);
};

describe('a definitive answer from the gateway', () => {
  it.each([
    ['declines the card', undefined, 'tok_declined', 'card_declined'],
    ['refuses the card with a 402', { kind: 'refuse', status: 402 }, 'tok_visa', 'card-refused'],
    ['refuses the card with a 400', { kind: 'refuse', status: 400 }, 'tok_visa', 'card-refused'],
  ])(
    '%s: the decline is recorded, the amount released, and the answer replayed byte for byte',
    async (_name, fault, token, reason) => {
      const invoiceId = await issueInvoice();
      if (fault) await env.arm('charge', fault);
      const key = randomUUID();
      const first = await payByCard(invoiceId, key, token);
      expect(first.status).toBe(402);
      const problem = first.json<{
        type: string;
        payment: { id: string; status: string; declineReason: string };
      }>();
      expect(problem).toMatchObject({
        type: '/problems/card-declined',
        payment: { status: 'declined', declineReason: reason },
      });
      const replay = await payByCard(invoiceId, key, token);
      expect(replay.status).toBe(402);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.text).toBe(first.text);
      expect(await invoice(invoiceId)).toMatchObject({ paid: 0, reserved: 0 });
      expect(await env.charges(problem.payment.id)).toHaveLength(fault ? 0 : 1);
      // The released amount can be paid again, with a new key.
      expect((await payByCard(invoiceId, randomUUID())).status).toBe(201);
    },
  );
});

describe('an outcome that stays unknown', () => {
  it('is retried by the completer without ever charging, needs attention after the cap, and an operator releases it', async () => {
    const invoiceId = await issueInvoice();
    await env.arm('charge', { kind: 'error', status: 502 });
    const key = randomUUID();
    const failed = await payByCard(invoiceId, key);
    expect(failed.status).toBe(503);

    // The client never comes back: the completer has only the token's reference, so it inquires and cannot charge.
    const replay = await untilNeedsAttention(invoiceId, key);
    expect(replay.status).toBe(424);
    const problem = replay.json<{ type: string; paymentId: string; attempts: number }>();
    expect(problem).toMatchObject({ type: '/problems/payment-needs-attention', attempts: 3 });
    const { paymentId } = problem;
    expect(await env.charges(paymentId)).toHaveLength(0);
    expect(await invoice(invoiceId)).toMatchObject({ paid: 0, reserved: 800 });
    expect((await env.http.get('/problems/payment-needs-attention')).status).toBe(200);

    const listed = await env.http.get('/payments/needing-attention', env.tenant.alice);
    expect(listed.json()).toEqual({
      payments: [
        expect.objectContaining({ id: paymentId, invoiceId, amount: 800, currency: 'EUR', attempts: 3 }),
      ],
    });
    expect((await env.http.get('/ops/payments/needing-attention', env.tenant.olga)).json()).toEqual({
      payments: [expect.objectContaining({ id: paymentId, method: 'card', status: 'needs-attention' })],
    });
    const other = await env.api.tenant();
    expect((await env.http.get('/payments/needing-attention', other.alice)).json()).toEqual({ payments: [] });
    expect((await env.http.get('/metrics')).text).toMatch(/^once_card_payments_needing_attention [1-9]/m);

    // A staff key may not resolve it, and nothing is stored for its key: an operator can use the same key.
    const resolveKey = randomUUID();
    const forbidden = await resolve(paymentId, env.tenant.alice, 'mark-declined', resolveKey);
    expect(forbidden.status).toBe(403);
    expect(forbidden.json()).toMatchObject({ type: '/problems/forbidden' });
    const resolved = await resolve(paymentId, env.tenant.olga, 'mark-declined', resolveKey);
    expect(resolved.status).toBe(200);
    expect(resolved.json()).toMatchObject({
      id: paymentId,
      status: 'declined',
      declineReason: 'marked-declined-by-operator',
    });
    const again = await resolve(paymentId, env.tenant.olga, 'mark-declined', resolveKey);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(resolved.text);

    expect(await invoice(invoiceId)).toMatchObject({ paid: 0, reserved: 0 });
    expect((await env.http.get('/payments/needing-attention', env.tenant.alice)).json()).toEqual({
      payments: [],
    });
    expect(await env.charges(paymentId)).toHaveLength(0);
  });

  it('is captured when the operator inquires and the gateway has the charge', async () => {
    const invoiceId = await issueInvoice();
    // The charge happens but its answer is lost, and the completer's inquiries fail: the outcome stays unknown.
    await env.arm('charge', { kind: 'lost-response' });
    await env.arm('inquiry', { kind: 'error', status: 502 }, 2);
    const key = randomUUID();
    expect((await payByCard(invoiceId, key)).status).toBe(503);
    const { paymentId } = (await untilNeedsAttention(invoiceId, key)).json<{ paymentId: string }>();
    expect(await invoice(invoiceId)).toMatchObject({ paid: 0, reserved: 800 });

    const resolved = await resolve(paymentId, env.tenant.olga, 'inquire');
    expect(resolved.status).toBe(200);
    expect(resolved.json()).toMatchObject({ id: paymentId, status: 'captured' });
    expect(await invoice(invoiceId)).toMatchObject({ paid: 800, reserved: 0 });
    expect(await env.charges(paymentId)).toHaveLength(1);
  });

  it('cannot be resolved before the completer gave up, nor for an unknown payment', async () => {
    const invoiceId = await issueInvoice();
    const paid = (await payByCard(invoiceId, randomUUID())).json<{ id: string }>();
    expect((await resolve(paid.id, env.tenant.olga, 'mark-declined')).json()).toMatchObject({
      status: 404,
      type: '/problems/card-settlement-not-found',
    });
    expect((await resolve(paid.id, env.tenant.olga, 'refund')).status).toBe(400);
  });
});

describe('the card token', () => {
  it('is in no stored event: not in the key log, not in a stored response, not in a domain event', async () => {
    const token = `tok_visa_${randomUUID()}`;
    const invoiceId = await issueInvoice();
    await env.arm('charge', { kind: 'error', status: 502 });
    const key = randomUUID();
    expect((await payByCard(invoiceId, key, token)).status).toBe(503);
    // The client's retry carries the token again, so it may charge.
    let settled = await payByCard(invoiceId, key, token);
    for (let attempt = 0; attempt < 50 && (settled.status === 409 || settled.status === 503); attempt++) {
      await new Promise((resolveWait) => setTimeout(resolveWait, 100));
      settled = await payByCard(invoiceId, key, token);
    }
    expect(settled.status).toBe(201);
    expect(await env.charges(settled.json<{ id: string }>().id)).toHaveLength(1);

    const events: RecordedEvent[] = [];
    for (let after: RecordedEvent['position'] | undefined; ;) {
      const batch = await env.api.app.eventStore.readAll({ ...(after ? { after } : {}), maxCount: 1_000 });
      events.push(...batch.events);
      if (batch.caughtUp || batch.events.length === 0) break;
      after = batch.events.at(-1)?.position;
    }
    const stored = JSON.stringify(events.map((event) => [event.stream, event.data, event.metadata]));
    expect(stored).toContain(invoiceId);
    expect(stored).not.toContain(token);
  });
});
