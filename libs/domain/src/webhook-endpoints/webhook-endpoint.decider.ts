import type { Decider } from '../decider/index.js';
import type { TenantId, Timestamp, WebhookEndpointId } from '../values/index.js';
import type { WebhookEndpointCommand } from './webhook-endpoint.commands.js';
import {
  InvalidWebhookEventTypes,
  WebhookEndpointAlreadyRegistered,
  WebhookEndpointNotFound,
} from './webhook-endpoint.errors.js';
import type { WebhookEndpointEvent } from './webhook-endpoint.events.js';
import { isWebhookEventType } from './webhook-event-types.js';
import type { WebhookEventType } from './webhook-event-types.js';

/** A secret (sealed) that still signs deliveries after a rotation, until `expiresAt`. */
export interface PreviousWebhookSecret {
  readonly sealedSecret: string;
  readonly expiresAt: Timestamp;
}

export interface RegisteredWebhookEndpoint {
  readonly status: 'enabled' | 'disabled';
  readonly tenantId: TenantId;
  readonly endpointId: WebhookEndpointId;
  readonly url: string;
  readonly eventTypes: readonly WebhookEventType[];
  readonly sealedSecret: string;
  readonly previousSecret?: PreviousWebhookSecret;
  readonly registeredAt: Timestamp;
  /** Why the endpoint is disabled (set while `status` is `disabled`). */
  readonly disabledReason?: string;
}

export type WebhookEndpointState =
  | { readonly status: 'none' }
  | RegisteredWebhookEndpoint
  | { readonly status: 'deleted'; readonly endpointId: WebhookEndpointId };

/** A stream with no events: no endpoint yet. */
export const initialState = (): WebhookEndpointState => ({ status: 'none' });

const requireRegistered = (
  state: WebhookEndpointState,
  endpointId: WebhookEndpointId,
): RegisteredWebhookEndpoint => {
  if (state.status === 'none' || state.status === 'deleted')
    throw new WebhookEndpointNotFound({ endpointId });
  return state;
};

/** Unique, known event types, in the order given; refuses an empty list and any unknown type. */
const subscribedTypes = (eventTypes: readonly string[]): readonly WebhookEventType[] => {
  const unknown = eventTypes.filter((type) => !isWebhookEventType(type));
  if (eventTypes.length === 0 || unknown.length > 0) throw new InvalidWebhookEventTypes({ unknown });
  return [...new Set(eventTypes.filter(isWebhookEventType))];
};

/**
 * Decides a webhook endpoint command; throws a `DomainError` when a rule forbids it. An endpoint is registered once
 * with known event types; its secret rotates with a grace period for the previous one; disabling and enabling are
 * no-ops when already so; a deleted endpoint is gone for every command.
 *
 * @example
 * decide({ type: 'DeleteWebhookEndpoint', data: { endpointId, deletedAt } }, registered); // [WebhookEndpointDeleted]
 */
export const decide = (
  command: WebhookEndpointCommand,
  state: WebhookEndpointState,
): readonly WebhookEndpointEvent[] => {
  switch (command.type) {
    case 'RegisterWebhookEndpoint': {
      const { tenantId, endpointId, url, eventTypes, sealedSecret, registeredAt } = command.data;
      if (state.status !== 'none') throw new WebhookEndpointAlreadyRegistered({ endpointId });
      return [
        {
          type: 'WebhookEndpointRegistered',
          data: {
            tenantId,
            endpointId,
            url,
            eventTypes: subscribedTypes(eventTypes),
            sealedSecret,
            registeredAt,
          },
        },
      ];
    }
    case 'RotateWebhookEndpointSecret': {
      const { endpointId, sealedSecret, rotatedAt, previousSecretExpiresAt } = command.data;
      const endpoint = requireRegistered(state, endpointId);
      return [
        {
          type: 'WebhookEndpointSecretRotated',
          data: {
            tenantId: endpoint.tenantId,
            endpointId,
            sealedSecret,
            rotatedAt,
            previousSecretExpiresAt,
          },
        },
      ];
    }
    case 'DisableWebhookEndpoint': {
      const { endpointId, reason, disabledAt } = command.data;
      const endpoint = requireRegistered(state, endpointId);
      if (endpoint.status === 'disabled') return [];
      return [
        {
          type: 'WebhookEndpointDisabled',
          data: { tenantId: endpoint.tenantId, endpointId, reason, disabledAt },
        },
      ];
    }
    case 'EnableWebhookEndpoint': {
      const { endpointId, enabledAt } = command.data;
      const endpoint = requireRegistered(state, endpointId);
      if (endpoint.status === 'enabled') return [];
      return [
        { type: 'WebhookEndpointEnabled', data: { tenantId: endpoint.tenantId, endpointId, enabledAt } },
      ];
    }
    case 'DeleteWebhookEndpoint': {
      const { endpointId, deletedAt } = command.data;
      const endpoint = requireRegistered(state, endpointId);
      return [
        { type: 'WebhookEndpointDeleted', data: { tenantId: endpoint.tenantId, endpointId, deletedAt } },
      ];
    }
    default: {
      const _exhaustive: never = command;
      return _exhaustive;
    }
  }
};

/**
 * Folds one endpoint event into the state; events that cannot apply in the current status leave it as is.
 * @example const state = events.reduce(evolve, initialState());
 */
export const evolve = (state: WebhookEndpointState, event: WebhookEndpointEvent): WebhookEndpointState => {
  switch (event.type) {
    case 'WebhookEndpointRegistered': {
      const { tenantId, endpointId, url, eventTypes, sealedSecret, registeredAt } = event.data;
      return { status: 'enabled', tenantId, endpointId, url, eventTypes, sealedSecret, registeredAt };
    }
    case 'WebhookEndpointSecretRotated': {
      if (state.status !== 'enabled' && state.status !== 'disabled') return state;
      const previousSecret = {
        sealedSecret: state.sealedSecret,
        expiresAt: event.data.previousSecretExpiresAt,
      };
      return { ...state, sealedSecret: event.data.sealedSecret, previousSecret };
    }
    case 'WebhookEndpointDisabled':
      if (state.status !== 'enabled') return state;
      return { ...state, status: 'disabled', disabledReason: event.data.reason };
    case 'WebhookEndpointEnabled': {
      if (state.status !== 'disabled') return state;
      const { disabledReason: _reason, ...enabled } = state;
      return { ...enabled, status: 'enabled' };
    }
    case 'WebhookEndpointDeleted':
      if (state.status !== 'enabled' && state.status !== 'disabled') return state;
      return { status: 'deleted', endpointId: state.endpointId };
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
};

/** The webhook endpoint decider: register once, rotate the secret, disable/enable, delete. */
export const decider: Decider<WebhookEndpointCommand, WebhookEndpointEvent, WebhookEndpointState> = {
  decide,
  evolve,
  initialState,
};
