export { menuRoutes } from './menu.routes.js';
export { listMenu, menuMigrations, putMenuItem } from './menu.store.js';
export type { MenuItem } from './menu.store.js';
