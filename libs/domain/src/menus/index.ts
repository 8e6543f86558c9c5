export { decider as menuDecider, maxMenuItems } from './menu.decider.js';
export type { MenuItem, MenuState } from './menu.decider.js';
export type { MenuCommand, SetMenuItem, WithdrawMenuItem } from './menu.commands.js';
export type {
  MenuEvent,
  MenuItemAdded,
  MenuItemRenamed,
  MenuItemRepriced,
  MenuItemWithdrawn,
} from './menu.events.js';
export { MenuFull, MenuItemNotFound } from './menu.errors.js';
