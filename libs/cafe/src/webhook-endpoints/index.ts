export {
  deleteWebhookEndpoint,
  disableWebhookEndpoint,
  enableWebhookEndpoint,
  registerWebhookEndpoint,
  rotateWebhookSecret,
} from './webhook-endpoint.commands.js';
export {
  deleteWebhookEndpointHandler,
  disableWebhookEndpointHandler,
  enableWebhookEndpointHandler,
  registerWebhookEndpointHandler,
  rotateWebhookSecretHandler,
} from './webhook-endpoint.handlers.js';
export {
  registerWebhookEndpointBody,
  rotateWebhookSecretBody,
  webhookEndpointIdParams,
  webhookEndpointView,
  webhookEndpointWithSecret,
} from './webhook-endpoint.schemas.js';
