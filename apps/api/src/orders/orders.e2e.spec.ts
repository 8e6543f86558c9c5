import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { createHttp, startTestApi } from '../testing/index.js';
import type { Http, TestApi, TestTenant } from '../testing/index.js';

let db: TestDatabase;
let api: TestApi;
let http: Http;
let tenant: TestTenant;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi({
    databaseUrl: db.connectionString,
    gatewayUrl: 'http://127.0.0.1:9',
    logger: false,
  });
  http = createHttp(api.url);
  tenant = await api.tenant();
});

afterAll(async () => {
  await api?.close();
  await db?.release();
});

const placeOrder = async (expectedTotal?: number) => {
  const response = await http.post('/orders', {
    apiKey: tenant.alice,
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

const act = (orderId: string, action: 'serve' | 'complete', key = randomUUID()) =>
  http.post(`/orders/${orderId}/${action}`, { apiKey: tenant.alice, key, body: {} });

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

    expect((await http.get(`/orders/${id}`, tenant.alice)).json()).toMatchObject({
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

  it('answers 404 for an unknown order', async () => {
    expect((await http.get(`/orders/${randomUUID()}`, tenant.alice)).status).toBe(404);
    expect((await act(randomUUID(), 'serve')).status).toBe(404);
  });
});
