import { z } from 'zod';
import { emptyBody, routeCommand } from '../commands/route-command.js';
import {
  registerWebhookEndpointBody,
  rotateWebhookSecretBody,
  webhookEndpointIdParams,
} from './webhook-endpoint.schemas.js';

/** `POST /webhook-endpoints`: the url and event types; the endpoint's id comes from the key, its secret from the server. */
export const registerWebhookEndpoint = routeCommand(
  'RegisterWebhookEndpoint',
  1,
  z.object({ body: registerWebhookEndpointBody }).transform(({ body }) => body),
);

/** `POST /webhook-endpoints/:id/rotate-secret`: how long the previous secret keeps signing (24 h by default). */
export const rotateWebhookSecret = routeCommand(
  'RotateWebhookEndpointSecret',
  1,
  z
    .object({ params: webhookEndpointIdParams, body: rotateWebhookSecretBody.nullable() })
    .transform(({ params, body }) => ({
      endpointId: params.id,
      gracePeriodSeconds: body?.gracePeriodSeconds ?? null,
    })),
);

const onEndpoint = z
  .object({ params: webhookEndpointIdParams, body: emptyBody.nullable() })
  .transform(({ params }) => ({ endpointId: params.id }));

/** `POST /webhook-endpoints/:id/enable`. */
export const enableWebhookEndpoint = routeCommand('EnableWebhookEndpoint', 1, onEndpoint);

/** `POST /webhook-endpoints/:id/disable`. */
export const disableWebhookEndpoint = routeCommand('DisableWebhookEndpoint', 1, onEndpoint);

/** `DELETE /webhook-endpoints/:id`. */
export const deleteWebhookEndpoint = routeCommand('DeleteWebhookEndpoint', 1, onEndpoint);
