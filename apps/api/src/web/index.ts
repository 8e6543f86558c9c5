export { webAssetsRoutes } from './web-assets.routes.js';
