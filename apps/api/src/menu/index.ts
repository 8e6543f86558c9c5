export { menuRoutes } from './menu.routes.js';
export { setMenuItem, withdrawMenuItem } from './menu.commands.js';
export { setMenuItemHandler, withdrawMenuItemHandler } from './menu.handlers.js';
