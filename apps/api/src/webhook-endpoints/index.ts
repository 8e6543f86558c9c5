export { webhookDeliveriesRoutes } from './webhook-deliveries.routes.js';
export { webhookEndpointsRoutes } from './webhook-endpoints.routes.js';
