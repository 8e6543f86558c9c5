import { describe, expect, it } from 'vitest';
import { useTestApi } from '../testing/index.js';

const env = useTestApi();

const put = (apiKey: string, sku: string, body: unknown) =>
  fetch(`${env.api.url}/menu/items/${sku}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('menu', () => {
  it('sets items and reprices them in place, per tenant', async () => {
    const { alice, ada } = env.tenant;
    expect((await put(ada, 'espresso', { name: 'Espresso', unitPrice: 250, currency: 'EUR' })).status).toBe(
      200,
    );
    expect((await put(ada, 'croissant', { name: 'Croissant', unitPrice: 300, currency: 'EUR' })).status).toBe(
      200,
    );
    const repriced = await put(ada, 'espresso', { name: 'Espresso', unitPrice: 280, currency: 'EUR' });
    expect(await repriced.json()).toMatchObject({ sku: 'espresso', unitPrice: 280 });

    const menu = (await env.http.get('/menu', alice)).json<{ items: { sku: string; unitPrice: number }[] }>();
    expect(menu.items.map(({ sku, unitPrice }) => ({ sku, unitPrice }))).toEqual([
      { sku: 'espresso', unitPrice: 280 },
      { sku: 'croissant', unitPrice: 300 },
    ]);
    const stranger = await env.api.tenant();
    expect((await env.http.get('/menu', stranger.alice)).json()).toEqual({ items: [] });
  });

  it('refuses bad items and callers without a key', async () => {
    const { ada } = env.tenant;
    expect((await put(ada, 'Bad Sku', { name: 'x', unitPrice: 1, currency: 'EUR' })).status).toBe(400);
    expect((await put(ada, 'tea', { name: 'Tea', unitPrice: -1, currency: 'EUR' })).status).toBe(400);
    expect((await put(ada, 'tea', { name: 'Tea', unitPrice: 100, currency: 'EUR', extra: 1 })).status).toBe(
      400,
    );
    expect((await env.http.get('/menu')).status).toBe(401);
  });
});
