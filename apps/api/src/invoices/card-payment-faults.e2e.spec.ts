import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { shortGatewayTimings, useGatewayTestApi } from '../testing/index.js';

const env = useGatewayTestApi(shortGatewayTimings);

const payByCard = async (invoiceId: string, key: string) =>
  env.http.post(`/invoices/${invoiceId}/payments`, {
    apiKey: env.tenant.alice,
    key,
    body: { method: 'card', amount: 800, currency: 'EUR', cardToken: 'tok_visa' },
  });

/** A client's retries: through 409 (the lease of the failed attempt) and 503 until the outcome is known. */
const retryUntilKnown = async (send: () => ReturnType<typeof payByCard>) => {
  for (let attempt = 0; attempt < 60; attempt++) {
    const answer = await send();
    if (answer.status !== 409 && answer.status !== 503) return answer;
    await sleep(100);
  }
  throw new Error('the payment never settled');
};

describe.each([
  ['hangs (the api times out)', { kind: 'hang' }],
  ['answers 502', { kind: 'error', status: 502 }],
  ['charges but the response is lost', { kind: 'lost-response' }],
])('when the gateway %s', (_name, fault) => {
  it('answers 503, and the retry asks the gateway first and ends with exactly one charge', async () => {
    const invoiceId = (
      await env.http.post('/invoices', {
        apiKey: env.tenant.alice,
        key: randomUUID(),
        body: { currency: 'EUR', total: 1000 },
      })
    ).json<{ id: string }>().id;
    await env.arm('charge', fault);
    const key = randomUUID();
    const failed = await payByCard(invoiceId, key);
    expect(failed.status).toBe(503);
    expect(failed.json()).toMatchObject({ type: '/problems/gateway-unavailable' });

    const settled = await retryUntilKnown(() => payByCard(invoiceId, key));
    expect(settled.status).toBe(201);
    const payment = settled.json<{ id: string; status: string }>();
    expect(payment.status).toBe('captured');
    expect(await env.charges(payment.id)).toHaveLength(1);
    expect((await env.http.get(`/invoices/${invoiceId}`, env.tenant.alice)).json()).toMatchObject({
      paid: 800,
      reserved: 0,
      payments: [expect.anything()],
    });
  });
});

describe('the completer', () => {
  it('finishes a card payment whose client never came back, and the late retry gets the stored answer', async () => {
    const invoiceId = (
      await env.http.post('/invoices', {
        apiKey: env.tenant.alice,
        key: randomUUID(),
        body: { currency: 'EUR', total: 1000 },
      })
    ).json<{ id: string }>().id;
    await env.arm('charge', { kind: 'lost-response' });
    const key = randomUUID();
    expect((await payByCard(invoiceId, key)).status).toBe(503);

    await expect
      .poll(async () => (await env.http.get(`/idempotency-keys/${key}`, env.tenant.alice)).json(), {
        timeout: 20_000,
      })
      .toMatchObject({ status: 'completed', responseStatus: 201 });
    const late = await payByCard(invoiceId, key);
    expect(late.status).toBe(201);
    expect(late.headers.get('idempotent-replayed')).toBe('true');
    expect(await env.charges(late.json<{ id: string }>().id)).toHaveLength(1);
    // The replay carries the completer's write position, so this read shows the capture.
    expect(late.headers.get('once-position')).not.toBeNull();
    expect((await env.http.get(`/invoices/${invoiceId}`, env.tenant.alice)).json()).toMatchObject({
      paid: 800,
      reserved: 0,
    });
  });
});
