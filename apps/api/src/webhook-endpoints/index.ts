export { webhookDeliveriesRoutes } from './webhook-deliveries.routes.js';
export { withWebhookEndpointCommands } from './webhook-endpoint-commands.js';
export { webhookEndpointsRoutes } from './webhook-endpoints.routes.js';
