import { randomUUID } from 'node:crypto';
import { demoMenu } from '../embedded/demo-menu.js';

/** A menu item as `PUT /menu/items/:sku` takes it, with its sku. */
export interface MenuItemInput {
  readonly sku: string;
  readonly name: string;
  readonly unitPrice: number;
  readonly currency: string;
}

/**
 * Sets menu items through the api (one keyed `PUT` each, the menu's own command) with an admin key (setting prices
 * configures the tenant), then waits until `GET /menu` shows them, so a till or a test that reads the menu next sees
 * every one. Answers the last write's position.
 *
 * @example
 * await putMenuItems(api.url, tenant.ada, [{ sku: 'espresso', name: 'Espresso', unitPrice: 250, currency: 'EUR' }]);
 */
export const putMenuItems = async (
  url: string,
  adminKey: string,
  items: readonly MenuItemInput[],
): Promise<string> => {
  let position = '';
  for (const { sku, ...item } of items) {
    const response = await fetch(`${url}/menu/items/${sku}`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${adminKey}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: JSON.stringify(item),
    });
    if (!response.ok)
      throw new Error(`PUT /menu/items/${sku}: ${String(response.status)} ${await response.text()}`);
    position = response.headers.get('once-position') ?? position;
  }
  const menu = await fetch(`${url}/menu`, {
    headers: { authorization: `Bearer ${adminKey}`, ...(position ? { 'once-min-position': position } : {}) },
  });
  if (!menu.ok || menu.headers.get('once-stale') === 'true')
    throw new Error('GET /menu did not show the items');
  return position;
};

/**
 * Gives a tenant the demo café's menu through the api with an admin key (espresso 250, flat-white 450, croissant
 * 300, … EUR cents).
 *
 * @example
 * await putDemoMenu(api.url, tenant.ada);
 */
export const putDemoMenu = async (url: string, adminKey: string): Promise<void> => {
  await putMenuItems(url, adminKey, demoMenu);
};
