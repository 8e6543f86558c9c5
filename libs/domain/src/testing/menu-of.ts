import { decider as menuDecider } from '../menus/menu.decider.js';
import type { MenuState } from '../menus/menu.decider.js';
import type { MenuEvent } from '../menus/menu.events.js';
import { asSku, asTenantId, money } from '../values/index.js';

/** One item of a test menu: its sku and price (minor units; EUR unless said). */
export interface TestMenuItem {
  readonly sku: string;
  readonly unitPrice: number;
  readonly currency?: string;
}

/**
 * A menu holding these items, folded from `MenuItemAdded` events as a real menu stream would be: what a handler
 * passes to `PlaceOrder`.
 *
 * @example
 * const menu = menuOf([{ sku: 'espresso', unitPrice: 250 }, { sku: 'croissant', unitPrice: 300 }]);
 */
export const menuOf = (items: readonly TestMenuItem[], tenantId = asTenantId('tenant-1')): MenuState =>
  items
    .map(({ sku, unitPrice, currency = 'EUR' }): MenuEvent => ({
      type: 'MenuItemAdded',
      data: {
        tenantId,
        sku: asSku(sku),
        name: sku,
        unitPrice: money(unitPrice, currency),
        addedAt: '2026-01-31T08:00:00.000Z',
      },
    }))
    .reduce(menuDecider.evolve, menuDecider.initialState());
