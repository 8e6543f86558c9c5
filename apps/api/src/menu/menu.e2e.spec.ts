import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { maxMenuItems } from '@once/domain/menus';
import { useTestApi } from '../testing/index.js';

const env = useTestApi();

/** The position of the latest menu write: a read of the menu waits for it (read your writes). */
let written: string | undefined;

const send = async (
  method: 'PUT' | 'DELETE',
  apiKey: string,
  sku: string,
  body?: unknown,
  key: string = randomUUID(),
) => {
  const response = await fetch(`${env.api.url}/menu/items/${sku}`, {
    method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      'idempotency-key': key,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  written = response.headers.get('once-position') ?? written;
  return response;
};
const put = (apiKey: string, sku: string, body: unknown, key?: string) => send('PUT', apiKey, sku, body, key);
const withdraw = (apiKey: string, sku: string, key?: string) => send('DELETE', apiKey, sku, undefined, key);

const menuOf = async (apiKey: string) =>
  (await env.http.get('/menu', apiKey, written === undefined ? {} : { 'once-min-position': written })).json<{
    items: { sku: string; name: string; unitPrice: number }[];
  }>().items;

const menuEventsOf = async (tenantId: string) =>
  (
    await env.db.pool.query<{ type: string }>(
      'SELECT type FROM events WHERE stream = $1 ORDER BY global_position',
      [`menu-${tenantId}`],
    )
  ).rows.map((row) => row.type);

describe('menu', () => {
  it('adds items and reprices them in place, per tenant, as events on the tenant’s menu', async () => {
    const { alice, ada, tenantId } = await env.api.tenant();
    expect((await put(ada, 'espresso', { name: 'Espresso', unitPrice: 250, currency: 'EUR' })).status).toBe(
      200,
    );
    expect((await put(ada, 'croissant', { name: 'Croissant', unitPrice: 300, currency: 'EUR' })).status).toBe(
      200,
    );
    const repriced = await put(ada, 'espresso', { name: 'Espresso', unitPrice: 280, currency: 'EUR' });
    expect(await repriced.json()).toMatchObject({ sku: 'espresso', unitPrice: 280, currency: 'EUR' });

    expect((await menuOf(alice)).map(({ sku, unitPrice }) => ({ sku, unitPrice }))).toEqual([
      { sku: 'espresso', unitPrice: 280 },
      { sku: 'croissant', unitPrice: 300 },
    ]);
    expect(await menuEventsOf(tenantId)).toEqual(['MenuItemAdded', 'MenuItemAdded', 'MenuItemRepriced']);
    const stranger = await env.api.tenant();
    expect((await env.http.get('/menu', stranger.alice)).json()).toEqual({ items: [] });
  });

  it('is a keyed command: a retry is a replay, and setting what the item already is writes nothing', async () => {
    const { ada, tenantId } = await env.api.tenant();
    const key = randomUUID();
    const body = { name: 'Tea', unitPrice: 200, currency: 'EUR' };
    const first = await put(ada, 'tea', body, key);
    const again = await put(ada, 'tea', body, key);
    expect(await again.text()).toBe(await first.text());
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await put(ada, 'tea', body)).status).toBe(200);
    expect(await menuEventsOf(tenantId)).toEqual(['MenuItemAdded']);
    expect((await put(ada, 'tea', { ...body, name: 'Green tea' })).status).toBe(200);
    expect(await menuEventsOf(tenantId)).toEqual(['MenuItemAdded', 'MenuItemRenamed']);
    const unkeyed = await fetch(`${env.api.url}/menu/items/tea`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ada}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(unkeyed.status).toBe(400);
    expect(await unkeyed.json()).toMatchObject({ type: '/problems/idempotency-key-missing' });
  });

  it('withdraws an item: gone from the menu, orders for it refused, and it can be set again', async () => {
    const { alice, ada } = await env.api.tenant();
    await put(ada, 'muffin', { name: 'Muffin', unitPrice: 320, currency: 'EUR' });
    const withdrawn = await withdraw(ada, 'muffin');
    expect(withdrawn.status).toBe(200);
    expect(await withdrawn.json()).toMatchObject({ sku: 'muffin', status: 'withdrawn' });
    expect(await menuOf(alice)).toEqual([]);

    const order = await env.http.post('/orders', {
      apiKey: alice,
      key: randomUUID(),
      body: { currency: 'EUR', lines: [{ sku: 'muffin', quantity: 1 }] },
    });
    expect(order.status).toBe(422);
    expect(order.json()).toMatchObject({ type: '/problems/item-not-on-menu' });

    const again = await withdraw(ada, 'muffin');
    expect(again.status).toBe(404);
    expect(await again.json()).toMatchObject({ type: '/problems/menu-item-not-found' });
    expect((await put(ada, 'muffin', { name: 'Muffin', unitPrice: 330, currency: 'EUR' })).status).toBe(200);
    expect((await menuOf(alice)).map(({ sku, unitPrice }) => ({ sku, unitPrice }))).toEqual([
      { sku: 'muffin', unitPrice: 330 },
    ]);
  });

  it(`holds at most ${String(maxMenuItems)} items (409 menu-full), and still reprices them`, async () => {
    const { alice, ada, tenantId } = await env.api.tenant();
    // The first items straight into the tenant's menu stream, as earlier PUTs would have written them.
    const added = (index: number) => ({
      id: randomUUID(),
      type: 'MenuItemAdded',
      data: {
        tenantId,
        sku: `item-${String(index)}`,
        name: 'Item',
        unitPrice: { amount: 100, currency: 'EUR' },
        addedAt: new Date().toISOString(),
      },
    });
    await env.api.app.eventStore.appendToStream(
      `menu-${tenantId}`,
      Array.from({ length: maxMenuItems - 1 }, (_, index) => added(index)),
      { expectedRevision: 'no_stream' },
    );
    const last = `item-${String(maxMenuItems - 1)}`;
    expect((await put(ada, last, { name: 'Item', unitPrice: 100, currency: 'EUR' })).status).toBe(200);
    const full = await put(ada, 'one-more', { name: 'One more', unitPrice: 100, currency: 'EUR' });
    expect(full.status).toBe(409);
    expect(await full.json()).toMatchObject({
      type: '/problems/menu-full',
      data: { maxItems: maxMenuItems },
    });
    expect((await put(ada, 'item-0', { name: 'Item', unitPrice: 120, currency: 'EUR' })).status).toBe(200);
    expect(await menuOf(alice)).toHaveLength(maxMenuItems);
  });

  it('refuses bad items and callers without a key', async () => {
    const { ada } = env.tenant;
    expect((await put(ada, 'Bad Sku', { name: 'x', unitPrice: 1, currency: 'EUR' })).status).toBe(400);
    expect((await put(ada, 'tea', { name: 'Tea', unitPrice: -1, currency: 'EUR' })).status).toBe(400);
    expect((await put(ada, 'tea', { name: 'Tea', unitPrice: 100, currency: 'EUR', extra: 1 })).status).toBe(
      400,
    );
    expect((await send('DELETE', ada, 'tea', [1])).status).toBe(400);
    expect((await env.http.get('/menu')).status).toBe(401);
    expect((await withdraw('nope', 'tea')).status).toBe(401);
  });

  it('is configured by admins: a staff or operator key gets 403 on its writes, and the menu is unchanged', async () => {
    const { alice, olga, ada } = await env.api.tenant();
    await put(ada, 'scone', { name: 'Scone', unitPrice: 280, currency: 'EUR' });
    for (const apiKey of [alice, olga]) {
      const repriced = await put(apiKey, 'scone', { name: 'Scone', unitPrice: 1, currency: 'EUR' });
      expect(repriced.status).toBe(403);
      expect(await repriced.json()).toMatchObject({ type: '/problems/forbidden' });
      expect((await withdraw(apiKey, 'scone')).status).toBe(403);
    }
    expect((await menuOf(olga)).map(({ sku, unitPrice }) => ({ sku, unitPrice }))).toEqual([
      { sku: 'scone', unitPrice: 280 },
    ]);
  });
});
