export { setMenuItem, withdrawMenuItem } from './menu.commands.js';
export { setMenuItemHandler, withdrawMenuItemHandler } from './menu.handlers.js';
export {
  menuItemParams,
  menuItemView,
  menuView,
  setMenuItemBody,
  withdrawnMenuItemView,
} from './menu.schemas.js';
