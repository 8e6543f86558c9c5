export { menuRoutes } from './menu.routes.js';
