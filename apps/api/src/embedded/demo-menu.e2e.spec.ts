import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { putMenuItems, useTestApi } from '../testing/index.js';
import { demoMenu, seedDemoMenu } from './demo-menu.js';

const env = useTestApi();

const menuOf = async (apiKey: string, position?: string) =>
  (await env.http.get('/menu', apiKey, position ? { 'once-min-position': position } : {})).json<{
    items: { sku: string; unitPrice: number }[];
  }>().items;

const menuEvents = async (tenantId: string) =>
  Number(
    (
      await env.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE stream = $1', [
        `menu-${tenantId}`,
      ])
    ).rows[0]?.n,
  );

describe('the demo menu', () => {
  it('is seeded through the menu’s own command, once, even when two seed it at once', async () => {
    const { tenantId, alice } = await env.api.tenant();
    const scope = { tenantId, actorId: randomUUID() };
    const { engine } = env.api.app.idempotency;
    await Promise.all([seedDemoMenu(engine, scope), seedDemoMenu(engine, scope)]);
    expect(await menuEvents(tenantId)).toBe(demoMenu.length);
    await expect
      .poll(async () => (await menuOf(alice)).map(({ sku, unitPrice }) => ({ sku, unitPrice })))
      .toEqual(demoMenu.map(({ sku, unitPrice }) => ({ sku, unitPrice })));
  });

  it('leaves a menu with any history alone: a price changed by hand survives a restart', async () => {
    const { tenantId, alice, ada } = await env.api.tenant();
    const scope = { tenantId, actorId: randomUUID() };
    await seedDemoMenu(env.api.app.idempotency.engine, scope);
    const position = await putMenuItems(env.api.url, ada, [
      { sku: 'espresso', name: 'Espresso', unitPrice: 270, currency: 'EUR' },
    ]);
    await seedDemoMenu(env.api.app.idempotency.engine, scope);
    expect(await menuEvents(tenantId)).toBe(demoMenu.length + 1);
    expect((await menuOf(alice, position)).find(({ sku }) => sku === 'espresso')?.unitPrice).toBe(270);
  });
});
