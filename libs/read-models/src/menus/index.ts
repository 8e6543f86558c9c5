export { menuEntriesTable, menusProjection } from './menus.projection.js';
export type { MenuEntryRow } from './menus.projection.js';
export { listMenu } from './menus.queries.js';
export type { MenuItemReadModel } from './menus.queries.js';
