import type { Decider } from '../decider/index.js';
import { requireCurrency, requireNonNegativeAmount } from '../rules/index.js';
import { money } from '../values/index.js';
import type { Money, Sku, Timestamp } from '../values/index.js';
import type { MenuCommand, SetMenuItem, WithdrawMenuItem } from './menu.commands.js';
import { MenuFull, MenuItemNotFound } from './menu.errors.js';
import type { MenuEvent } from './menu.events.js';

/** The most items one menu holds: a menu is read whole to price every order, so it stays small. */
export const maxMenuItems = 500;

/** One item on the menu, at the price orders are placed at now. */
export interface MenuItem {
  readonly sku: Sku;
  readonly name: string;
  readonly unitPrice: Money;
  /** When its name or price last changed (or it was added). */
  readonly changedAt: Timestamp;
}

/** The items on a tenant's menu now, in the order they were added; withdrawn items are not on it. */
export interface MenuState {
  readonly items: ReadonlyMap<Sku, MenuItem>;
}

/** A stream with no events: an empty menu. */
export const initialState = (): MenuState => ({ items: new Map() });

const set = ({ data }: SetMenuItem, state: MenuState): readonly MenuEvent[] => {
  const { tenantId, sku, name, setAt } = data;
  const unitPrice = money(
    requireNonNegativeAmount('unitPrice', data.unitPrice),
    requireCurrency(data.currency),
  );
  const current = state.items.get(sku);
  if (current === undefined) {
    if (state.items.size >= maxMenuItems) throw new MenuFull({ sku, maxItems: maxMenuItems });
    return [{ type: 'MenuItemAdded', data: { tenantId, sku, name, unitPrice, addedAt: setAt } }];
  }
  const events: MenuEvent[] = [];
  if (current.unitPrice.amount !== unitPrice.amount || current.unitPrice.currency !== unitPrice.currency) {
    events.push({
      type: 'MenuItemRepriced',
      data: { tenantId, sku, unitPrice, previousUnitPrice: current.unitPrice, repricedAt: setAt },
    });
  }
  if (current.name !== name) {
    events.push({ type: 'MenuItemRenamed', data: { tenantId, sku, name, renamedAt: setAt } });
  }
  return events;
};

const withdraw = ({ data }: WithdrawMenuItem, state: MenuState): readonly MenuEvent[] => {
  const { tenantId, sku, withdrawnAt } = data;
  if (!state.items.has(sku)) throw new MenuItemNotFound({ sku });
  return [{ type: 'MenuItemWithdrawn', data: { tenantId, sku, withdrawnAt } }];
};

/**
 * Decides a menu command against the menu's state; throws a `DomainError` when a rule forbids it. Setting an item
 * adds, reprices or renames it, or changes nothing when it already reads so; a full menu takes no new item; only an
 * item on the menu can be withdrawn.
 *
 * @param command - SetMenuItem or WithdrawMenuItem.
 * @param state - the fold of the tenant's menu stream.
 * @returns the events to append (none when the item already reads so).
 * @example
 * decide({ type: 'WithdrawMenuItem', data: { tenantId, sku, withdrawnAt } }, menu); // [MenuItemWithdrawn]
 */
export const decide = (command: MenuCommand, state: MenuState): readonly MenuEvent[] => {
  switch (command.type) {
    case 'SetMenuItem':
      return set(command, state);
    case 'WithdrawMenuItem':
      return withdraw(command, state);
    default: {
      const _exhaustive: never = command;
      return _exhaustive;
    }
  }
};

const withItem = (state: MenuState, item: MenuItem): MenuState => ({
  items: new Map(state.items).set(item.sku, item),
});

/**
 * Folds one menu event into the state. Events about an item that is not on the menu leave it as is.
 * @example const menu = events.reduce(evolve, initialState());
 */
export const evolve = (state: MenuState, event: MenuEvent): MenuState => {
  switch (event.type) {
    case 'MenuItemAdded': {
      const { sku, name, unitPrice, addedAt } = event.data;
      return withItem(state, { sku, name, unitPrice, changedAt: addedAt });
    }
    case 'MenuItemRepriced': {
      const current = state.items.get(event.data.sku);
      return current
        ? withItem(state, { ...current, unitPrice: event.data.unitPrice, changedAt: event.data.repricedAt })
        : state;
    }
    case 'MenuItemRenamed': {
      const current = state.items.get(event.data.sku);
      return current
        ? withItem(state, { ...current, name: event.data.name, changedAt: event.data.renamedAt })
        : state;
    }
    case 'MenuItemWithdrawn': {
      if (!state.items.has(event.data.sku)) return state;
      const items = new Map(state.items);
      items.delete(event.data.sku);
      return { items };
    }
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
};

/** The menu decider: items added, repriced, renamed and withdrawn; the prices every order is placed at. */
export const decider: Decider<MenuCommand, MenuEvent, MenuState> = { decide, evolve, initialState };
