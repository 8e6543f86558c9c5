import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { putMenuItems, useTestApi } from '../testing/index.js';
import type { TestTenant } from '../testing/index.js';

const env = useTestApi();

const flatWhite = { sku: 'flat-white', name: 'Flat white', unitPrice: 450, currency: 'EUR' };
const espresso = { sku: 'espresso', name: 'Espresso', unitPrice: 250, currency: 'EUR' };

beforeAll(async () => {
  await putMenuItems(env.api.url, env.tenant.ada, [flatWhite, espresso]);
});

interface OrderAnswer {
  id: string;
  status: string;
  total: number;
  expectedTotal?: number;
  lines: { sku: string; quantity: number; unitPrice: number }[];
}

const order = (body: unknown, { apiKey = env.tenant.alice, key = randomUUID() } = {}) =>
  env.http.post('/orders', { apiKey, key, body });

const placeOrder = async (expectedTotal?: number) => {
  const response = await order({
    currency: 'EUR',
    lines: [{ sku: 'flat-white', quantity: 2 }],
    ...(expectedTotal === undefined ? {} : { expectedTotal }),
  });
  expect(response.status).toBe(201);
  return response.json<OrderAnswer>();
};

const act = (orderId: string, action: 'approve' | 'serve' | 'complete', key = randomUUID()) =>
  env.http.post(`/orders/${orderId}/${action}`, { apiKey: env.tenant.alice, key, body: {} });

/** The unit prices the tenant's `OrderPlaced` events recorded, by order id. */
const recordedPrices = async (tenantId: string, orderId: string) =>
  (
    await env.db.pool.query<{ prices: number[] }>(
      `SELECT jsonb_path_query_array(data, '$.lines[*].unitPrice') AS prices FROM events
        WHERE type = 'OrderPlaced' AND data->>'tenantId' = $1 AND data->>'orderId' = $2`,
      [tenantId, orderId],
    )
  ).rows.map((row) => row.prices);

describe('orders', () => {
  it('prices every line from the menu and records the prices used in its events', async () => {
    const placed = await order({
      currency: 'EUR',
      lines: [
        { sku: 'flat-white', quantity: 2 },
        { sku: 'espresso', quantity: 1 },
      ],
      expectedTotal: 1150,
    });
    expect(placed.status).toBe(201);
    const answer = placed.json<OrderAnswer>();
    expect(answer).toMatchObject({ status: 'placed', total: 1150 });
    expect(answer.lines).toEqual([
      { sku: 'flat-white', quantity: 2, unitPrice: 450 },
      { sku: 'espresso', quantity: 1, unitPrice: 250 },
    ]);
    expect(await recordedPrices(env.tenant.tenantId, answer.id)).toEqual([[450, 250]]);
    expect((await env.http.get(`/orders/${answer.id}`, env.tenant.alice)).json()).toMatchObject({
      total: 1150,
      lines: answer.lines,
    });
  });

  it('a lying client cannot change a price: no price is taken, and a total of its own is held for review', async () => {
    const lying = await order({ currency: 'EUR', lines: [{ sku: 'flat-white', quantity: 2, unitPrice: 1 }] });
    expect(lying.status).toBe(400);
    expect(lying.json()).toMatchObject({ type: '/problems/invalid-request' });

    const claimed = await placeOrder(2);
    expect(claimed).toMatchObject({ status: 'held', total: 900, expectedTotal: 2 });
    const approved = await act(claimed.id, 'approve');
    expect(approved.json()).toMatchObject({ status: 'placed', total: 900 });
    expect(await recordedPrices(env.tenant.tenantId, claimed.id)).toEqual([[450]]);
  });

  it('an order queued offline at old prices, a repricing, then the drain: held for review at the new total', async () => {
    const tenant: TestTenant = await env.api.tenant();
    await putMenuItems(env.api.url, tenant.ada, [flatWhite]);
    // Made offline: the till showed 2 × 4.50 and kept the key; the body never changes.
    const key = randomUUID();
    const queued = { currency: 'EUR', lines: [{ sku: 'flat-white', quantity: 2 }], expectedTotal: 900 };
    await putMenuItems(env.api.url, tenant.ada, [{ ...flatWhite, unitPrice: 500 }]);

    const drained = await order(queued, { apiKey: tenant.alice, key });
    expect(drained.status).toBe(201);
    const held = drained.json<OrderAnswer>();
    expect(held).toMatchObject({ status: 'held', total: 1000, expectedTotal: 900 });
    expect(held.lines).toEqual([{ sku: 'flat-white', quantity: 2, unitPrice: 500 }]);
    expect(await recordedPrices(tenant.tenantId, held.id)).toEqual([[500]]);

    // A retry after yet another repricing is the first answer: the order was decided once, at one menu.
    await putMenuItems(env.api.url, tenant.ada, [{ ...flatWhite, unitPrice: 550 }]);
    const retried = await order(queued, { apiKey: tenant.alice, key });
    expect(retried.text).toBe(drained.text);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
  });

  it('refuses an item not on the menu with a stored 422, the same even once the item is added', async () => {
    const tenant = await env.api.tenant();
    await putMenuItems(env.api.url, tenant.ada, [espresso]);
    const key = randomUUID();
    const body = {
      currency: 'EUR',
      lines: [
        { sku: 'espresso', quantity: 1 },
        { sku: 'cortado', quantity: 1 },
      ],
    };
    const refused = await order(body, { apiKey: tenant.alice, key });
    expect(refused.status).toBe(422);
    expect(refused.json()).toMatchObject({
      type: '/problems/item-not-on-menu',
      data: { sku: 'cortado', line: 1 },
    });
    await putMenuItems(env.api.url, tenant.ada, [
      { sku: 'cortado', name: 'Cortado', unitPrice: 300, currency: 'EUR' },
    ]);
    const again = await order(body, { apiKey: tenant.alice, key });
    expect(again.text).toBe(refused.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await order(body, { apiKey: tenant.alice })).status).toBe(201);
  });

  it('refuses a line priced in another currency, and more than 200 lines', async () => {
    const other = await order({ currency: 'USD', lines: [{ sku: 'espresso', quantity: 1 }] });
    expect(other.status).toBe(422);
    expect(other.json()).toMatchObject({ type: '/problems/currency-mismatch' });
    const lines = Array.from({ length: 201 }, () => ({ sku: 'espresso', quantity: 1 }));
    const tooMany = await order({ currency: 'EUR', lines });
    expect(tooMany.status).toBe(400);
    expect(tooMany.json()).toMatchObject({ type: '/problems/invalid-request' });
    expect((await order({ currency: 'EUR', lines: lines.slice(1) })).status).toBe(201);
  });

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
    const held = await placeOrder(800);
    expect(held).toMatchObject({ status: 'held', total: 900, expectedTotal: 800 });
    expect((await act(held.id, 'serve')).json()).toMatchObject({ type: '/problems/order-awaiting-review' });
  });

  it('accepts the new total of a held order, which can then be served; only held orders are approved', async () => {
    const held = await placeOrder(800);
    const approved = await act(held.id, 'approve');
    expect(approved.status).toBe(200);
    expect(approved.json()).toMatchObject({ status: 'placed', total: 900 });
    expect((await act(held.id, 'approve')).json()).toMatchObject({ type: '/problems/order-not-held' });
    expect((await act(held.id, 'serve')).status).toBe(200);
  });

  it('answers 404 for an unknown order', async () => {
    expect((await env.http.get(`/orders/${randomUUID()}`, env.tenant.alice)).status).toBe(404);
    expect((await act(randomUUID(), 'serve')).status).toBe(404);
  });
});
