import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestApi } from '../testing/index.js';

const env = useTestApi();

const placeOrder = async (expectedTotal?: number) => {
  const response = await env.http.post('/orders', {
    apiKey: env.tenant.alice,
    key: randomUUID(),
    body: {
      currency: 'EUR',
      lines: [{ sku: 'flat-white', quantity: 2, unitPrice: 450 }],
      ...(expectedTotal === undefined ? {} : { expectedTotal }),
    },
  });
  expect(response.status).toBe(201);
  return response.json<{ id: string; status: string }>();
};

const act = (orderId: string, action: 'approve' | 'serve' | 'complete', key = randomUUID()) =>
  env.http.post(`/orders/${orderId}/${action}`, { apiKey: env.tenant.alice, key, body: {} });

describe('orders', () => {
  it('becomes a sale once: a second completion is a stored problem', async () => {
    const { id } = await placeOrder();
    expect((await act(id, 'serve')).status).toBe(200);
    const key = randomUUID();
    const completed = await act(id, 'complete', key);
    expect(completed.status).toBe(200);
    const { saleId } = completed.json<{ saleId: string }>();
    expect(saleId).toMatch(/^[0-9a-f-]{36}$/);

    const replay = await act(id, 'complete', key);
    expect(replay.text).toBe(completed.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    const secondKey = randomUUID();
    const second = await act(id, 'complete', secondKey);
    expect(second.status).toBe(409);
    expect(second.json()).toMatchObject({ type: '/problems/order-already-completed' });
    const secondAgain = await act(id, 'complete', secondKey);
    expect(secondAgain.text).toBe(second.text);
    expect(secondAgain.headers.get('idempotent-replayed')).toBe('true');

    expect((await env.http.get(`/orders/${id}`, env.tenant.alice)).json()).toMatchObject({
      status: 'completed',
      saleId,
    });
  });

  it('completes only from served', async () => {
    const { id } = await placeOrder();
    const early = await act(id, 'complete');
    expect(early.status).toBe(409);
    expect(early.json()).toMatchObject({ type: '/problems/order-not-served' });
  });

  it('holds an order for review when the client expected another total', async () => {
    const order = await placeOrder(800);
    expect(order.status).toBe('held');
    expect((await act(order.id, 'serve')).json()).toMatchObject({ type: '/problems/order-awaiting-review' });
  });

  it('accepts the new total of a held order, which can then be served; only held orders are approved', async () => {
    const order = await placeOrder(800);
    const approved = await act(order.id, 'approve');
    expect(approved.status).toBe(200);
    expect(approved.json()).toMatchObject({ status: 'placed', total: 900 });
    expect((await act(order.id, 'approve')).json()).toMatchObject({ type: '/problems/order-not-held' });
    expect((await act(order.id, 'serve')).status).toBe(200);
  });

  it('answers 404 for an unknown order', async () => {
    expect((await env.http.get(`/orders/${randomUUID()}`, env.tenant.alice)).status).toBe(404);
    expect((await act(randomUUID(), 'serve')).status).toBe(404);
  });
});
