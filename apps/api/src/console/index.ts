export { consoleRoutes } from './console.routes.js';
