import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestApi } from '../testing/index.js';

const env = useTestApi();

const command = (path: string, body: unknown, key = randomUUID()) =>
  env.http.post(path, { apiKey: env.tenant.alice, key, body });

describe('stock counts', () => {
  it('is posted once, however often and under whichever keys it is posted', async () => {
    const opened = await command('/stock-counts', {});
    expect(opened.status).toBe(201);
    const { id } = opened.json<{ id: string }>();
    expect(
      (await command(`/stock-counts/${id}/lines`, { sku: 'beans-1kg', countedQuantity: 12 })).status,
    ).toBe(200);
    expect((await command(`/stock-counts/${id}/lines`, { sku: 'milk-1l', countedQuantity: 30 })).status).toBe(
      200,
    );

    const postKey = randomUUID();
    const posted = await command(`/stock-counts/${id}/post`, {}, postKey);
    expect(posted.status).toBe(200);
    expect(posted.json()).toMatchObject({
      status: 'posted',
      lines: [{ sku: 'beans-1kg', countedQuantity: 12 }, { sku: 'milk-1l' }],
    });
    const replay = await command(`/stock-counts/${id}/post`, {}, postKey);
    expect(replay.text).toBe(posted.text);

    const concurrent = await Promise.all([1, 2, 3].map(() => command(`/stock-counts/${id}/post`, {})));
    for (const answer of concurrent) {
      expect(answer.status).toBe(409);
      expect(answer.json()).toMatchObject({ type: '/problems/stock-count-already-posted' });
    }
    expect(
      (await command(`/stock-counts/${id}/lines`, { sku: 'beans-1kg', countedQuantity: 1 })).status,
    ).toBe(409);
    expect((await env.http.get(`/stock-counts/${id}`, env.tenant.alice)).json()).toMatchObject({
      status: 'posted',
      postedAt: expect.any(String),
    });
  });

  it('refuses to post a count with no lines', async () => {
    const { id } = (await command('/stock-counts', {})).json<{ id: string }>();
    const posted = await command(`/stock-counts/${id}/post`, {});
    expect(posted.status).toBe(422);
    expect(posted.json()).toMatchObject({ type: '/problems/empty-stock-count' });
  });
});
