import { asTenantId, asWebhookEndpointId, webhookEndpointStream } from '@once/domain';
import { webhookEndpointDecider } from '@once/domain/webhook-endpoints';
import type {
  RegisterWebhookEndpoint,
  RotateWebhookEndpointSecret,
  WebhookEndpointCommand,
  WebhookEndpointState,
} from '@once/domain/webhook-endpoints';
import type { CommandContext, CommandOf, DecideCommandHandler, HandlerResponse } from '@once/idempotency';
import { generateWebhookSecret } from '@once/webhooks';
import type { SecretsKeyring } from '@once/webhooks';
import { aggregateCommand } from '../commands/aggregate-command.js';
import type {
  deleteWebhookEndpoint,
  disableWebhookEndpoint,
  enableWebhookEndpoint,
  registerWebhookEndpoint,
  rotateWebhookSecret,
} from './webhook-endpoint.commands.js';

type OnEndpoint = CommandOf<typeof enableWebhookEndpoint>;

const tenantOf = (context: CommandContext) => asTenantId(context.scope.tenantId);
const endpointIdOf = (context: CommandContext<{ readonly endpointId: string }>) =>
  asWebhookEndpointId(context.command.endpointId);
const at = (context: CommandContext) => context.requestedAt.toISOString();
const defaultGracePeriodSeconds = 24 * 3600;

const registered = (state: WebhookEndpointState) => {
  if (state.status !== 'enabled' && state.status !== 'disabled') {
    throw new Error('the webhook endpoint decider accepted a command but left no endpoint');
  }
  return state;
};

/**
 * The endpoint as the answer shows it; with its secret for a create or a rotation, sealed: the key log stores the
 * answer as it is, and the route unseals it on the way out (`revealSealedSecrets`), to the first request and each
 * replay alike.
 */
const endpointResponse = (
  status: number,
  state: WebhookEndpointState,
  withSecret: boolean,
): HandlerResponse => {
  const endpoint = registered(state);
  return {
    status,
    headers: { location: `/webhook-endpoints/${endpoint.endpointId}` },
    body: {
      id: endpoint.endpointId,
      url: endpoint.url,
      eventTypes: endpoint.eventTypes,
      status: endpoint.status,
      registeredAt: endpoint.registeredAt,
      previousSecretExpiresAt: endpoint.previousSecret?.expiresAt ?? null,
      ...(withSecret
        ? { secret: endpoint.sealedSecret }
        : { disabledReason: endpoint.disabledReason ?? null }),
    },
  };
};

/** A command on an existing endpoint, answered with the endpoint (without its secret). */
const endpointCommand = (
  command: (context: CommandContext<OnEndpoint>) => WebhookEndpointCommand,
): DecideCommandHandler<OnEndpoint> =>
  aggregateCommand({
    decider: webhookEndpointDecider,
    stream: (context) => webhookEndpointStream(tenantOf(context), endpointIdOf(context)),
    command,
    respond: (_context, state) => endpointResponse(200, state, false),
  });

/**
 * `POST /webhook-endpoints`: registers an endpoint whose id is derived from the key, with a new secret sealed under
 * the server's key (it is never kept in plain text).
 */
export const registerWebhookEndpointHandler = (
  secrets: SecretsKeyring,
): DecideCommandHandler<CommandOf<typeof registerWebhookEndpoint>> =>
  aggregateCommand({
    decider: webhookEndpointDecider,
    stream: (context) =>
      webhookEndpointStream(tenantOf(context), asWebhookEndpointId(context.ids.next('webhook-endpoint'))),
    command: (context): RegisterWebhookEndpoint => {
      const body = context.command;
      return {
        type: 'RegisterWebhookEndpoint',
        data: {
          tenantId: tenantOf(context),
          endpointId: asWebhookEndpointId(context.ids.next('webhook-endpoint')),
          url: body.url,
          eventTypes: body.eventTypes,
          sealedSecret: secrets.seal(generateWebhookSecret()),
          registeredAt: at(context),
        },
      };
    },
    respond: (_context, state) => endpointResponse(201, state, true),
  });

/**
 * `POST /webhook-endpoints/:id/rotate-secret`: a new secret (sealed); the previous one keeps signing for the grace
 * period.
 */
export const rotateWebhookSecretHandler = (
  secrets: SecretsKeyring,
): DecideCommandHandler<CommandOf<typeof rotateWebhookSecret>> =>
  aggregateCommand({
    decider: webhookEndpointDecider,
    stream: (context) => webhookEndpointStream(tenantOf(context), endpointIdOf(context)),
    command: (context): RotateWebhookEndpointSecret => {
      const grace = context.command.gracePeriodSeconds ?? defaultGracePeriodSeconds;
      return {
        type: 'RotateWebhookEndpointSecret',
        data: {
          endpointId: endpointIdOf(context),
          sealedSecret: secrets.seal(generateWebhookSecret()),
          rotatedAt: at(context),
          previousSecretExpiresAt: new Date(context.requestedAt.getTime() + grace * 1000).toISOString(),
        },
      };
    },
    respond: (_context, state) => endpointResponse(200, state, true),
  });

/** `POST /webhook-endpoints/:id/enable`: deliveries resume, with what was held while it was disabled. */
export const enableWebhookEndpointHandler: DecideCommandHandler<CommandOf<typeof enableWebhookEndpoint>> =
  endpointCommand((context) => ({
    type: 'EnableWebhookEndpoint',
    data: { endpointId: endpointIdOf(context), enabledAt: at(context) },
  }));

/** `POST /webhook-endpoints/:id/disable`: deliveries stop until it is enabled again. */
export const disableWebhookEndpointHandler: DecideCommandHandler<CommandOf<typeof disableWebhookEndpoint>> =
  endpointCommand((context) => ({
    type: 'DisableWebhookEndpoint',
    data: { endpointId: endpointIdOf(context), reason: 'disabled by the tenant', disabledAt: at(context) },
  }));

/** `DELETE /webhook-endpoints/:id`: no more deliveries, ever. */
export const deleteWebhookEndpointHandler: DecideCommandHandler<CommandOf<typeof deleteWebhookEndpoint>> =
  aggregateCommand({
    decider: webhookEndpointDecider,
    stream: (context) => webhookEndpointStream(tenantOf(context), endpointIdOf(context)),
    command: (context): WebhookEndpointCommand => ({
      type: 'DeleteWebhookEndpoint',
      data: { endpointId: endpointIdOf(context), deletedAt: at(context) },
    }),
    respond: (context) => ({ status: 200, body: { id: endpointIdOf(context), status: 'deleted' } }),
  });
