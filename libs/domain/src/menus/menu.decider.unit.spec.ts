import { describe, expect, it } from 'vitest';
import { InvalidAmount, InvalidCurrency } from '../errors/index.js';
import { deciderSpecification } from '../testing/index.js';
import { asSku, asTenantId, money } from '../values/index.js';
import type { MenuCommand } from './menu.commands.js';
import { decider, evolve, initialState, maxMenuItems } from './menu.decider.js';
import { MenuFull, MenuItemNotFound } from './menu.errors.js';
import type { MenuEvent } from './menu.events.js';

const given = deciderSpecification(decider);
const tenantId = asTenantId('tenant-1');
const espresso = asSku('espresso');
const at = '2026-01-31T08:00:00.000Z';
const later = '2026-01-31T12:00:00.000Z';
const eur = (amount: number) => money(amount, 'EUR');

const set = (
  overrides: Partial<Extract<MenuCommand, { type: 'SetMenuItem' }>['data']> = {},
): MenuCommand => ({
  type: 'SetMenuItem',
  data: {
    tenantId,
    sku: espresso,
    name: 'Espresso',
    unitPrice: 250,
    currency: 'EUR',
    setAt: at,
    ...overrides,
  },
});
const withdraw: MenuCommand = {
  type: 'WithdrawMenuItem',
  data: { tenantId, sku: espresso, withdrawnAt: later },
};

const added: MenuEvent = {
  type: 'MenuItemAdded',
  data: { tenantId, sku: espresso, name: 'Espresso', unitPrice: eur(250), addedAt: at },
};
const repriced: MenuEvent = {
  type: 'MenuItemRepriced',
  data: { tenantId, sku: espresso, unitPrice: eur(300), previousUnitPrice: eur(250), repricedAt: later },
};
const renamed: MenuEvent = {
  type: 'MenuItemRenamed',
  data: { tenantId, sku: espresso, name: 'Double espresso', renamedAt: later },
};
const withdrawn: MenuEvent = {
  type: 'MenuItemWithdrawn',
  data: { tenantId, sku: espresso, withdrawnAt: later },
};

const addedItem = (index: number): MenuEvent => ({
  type: 'MenuItemAdded',
  data: { tenantId, sku: asSku(`item-${String(index)}`), name: 'Item', unitPrice: eur(100), addedAt: at },
});

describe('SetMenuItem', () => {
  it('adds an item that is not on the menu', () => {
    given([]).when(set()).then([added]);
  });

  it('reprices an item, keeping the price it replaces', () => {
    given([added])
      .when(set({ unitPrice: 300, setAt: later }))
      .then([repriced]);
  });

  it('renames an item, and reprices and renames it at once', () => {
    given([added])
      .when(set({ name: 'Double espresso', setAt: later }))
      .then([renamed]);
    given([added])
      .when(set({ name: 'Double espresso', unitPrice: 300, setAt: later }))
      .then([repriced, renamed]);
  });

  it('changes nothing when the item already reads so', () => {
    given([added])
      .when(set({ setAt: later }))
      .then([]);
    given([added, repriced])
      .when(set({ unitPrice: 300 }))
      .then([]);
  });

  it('adds a withdrawn item again, as new', () => {
    given([added, withdrawn]).when(set()).then([added]);
  });

  it('refuses bad prices and currencies', () => {
    given([])
      .when(set({ unitPrice: -1 }))
      .then(InvalidAmount, { field: 'unitPrice', amount: -1 });
    given([])
      .when(set({ unitPrice: 2.5 }))
      .then(InvalidAmount, { field: 'unitPrice', amount: 2.5 });
    given([])
      .when(set({ currency: 'euro' }))
      .then(InvalidCurrency, { currency: 'euro' });
  });

  it(`holds at most ${String(maxMenuItems)} items, and still reprices one of them when full`, () => {
    const full = Array.from({ length: maxMenuItems }, (_, index) => addedItem(index));
    given(full).when(set()).then(MenuFull, { sku: espresso, maxItems: maxMenuItems });
    given([...full.slice(1), added])
      .when(set({ unitPrice: 300, setAt: later }))
      .then([repriced]);
    given([...full.slice(1), added, withdrawn])
      .when(set({ sku: asSku('item-0') }))
      .then([
        {
          type: 'MenuItemAdded',
          data: { tenantId, sku: asSku('item-0'), name: 'Espresso', unitPrice: eur(250), addedAt: at },
        },
      ]);
  });
});

describe('WithdrawMenuItem', () => {
  it('withdraws an item on the menu', () => {
    given([added]).when(withdraw).then([withdrawn]);
  });

  it('withdraws only an item on the menu', () => {
    given([]).when(withdraw).then(MenuItemNotFound, { sku: espresso });
    given([added, withdrawn]).when(withdraw).then(MenuItemNotFound, { sku: espresso });
  });
});

describe('menu state', () => {
  it('holds each item at its latest name and price, in the order items were added', () => {
    const croissant: MenuEvent = {
      type: 'MenuItemAdded',
      data: { tenantId, sku: asSku('croissant'), name: 'Croissant', unitPrice: eur(300), addedAt: at },
    };
    const state = [added, croissant, repriced, renamed].reduce(evolve, initialState());
    expect([...state.items.values()]).toEqual([
      { sku: espresso, name: 'Double espresso', unitPrice: eur(300), changedAt: later },
      { sku: 'croissant', name: 'Croissant', unitPrice: eur(300), changedAt: at },
    ]);
  });

  it('leaves withdrawn items off the menu and ignores events about items not on it', () => {
    expect(evolve(evolve(initialState(), added), withdrawn).items.size).toBe(0);
    expect(evolve(initialState(), repriced)).toEqual(initialState());
    expect(evolve(initialState(), withdrawn)).toEqual(initialState());
  });
});
