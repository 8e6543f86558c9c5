import { describe, expect, it } from 'vitest';
import { asTenantId, asWebhookEndpointId } from '../values/index.js';
import { deciderSpecification } from '../testing/index.js';
import type { WebhookEndpointCommand } from './webhook-endpoint.commands.js';
import { decider, evolve, initialState } from './webhook-endpoint.decider.js';
import {
  InvalidWebhookEventTypes,
  WebhookEndpointAlreadyRegistered,
  WebhookEndpointNotFound,
} from './webhook-endpoint.errors.js';
import type { WebhookEndpointEvent } from './webhook-endpoint.events.js';

const given = deciderSpecification(decider);
const tenantId = asTenantId('tenant-1');
const endpointId = asWebhookEndpointId('ep-1');
const at = '2026-01-31T08:00:00.000Z';
const later = '2026-01-31T09:00:00.000Z';
const graceEnds = '2026-02-01T09:00:00.000Z';
const url = 'https://kitchen.example.com/webhooks';
const sealedSecret = 'sealed:v1:0a1b2c3d:first';
const nextSealedSecret = 'sealed:v1:0a1b2c3d:second';

const register = (
  eventTypes: readonly string[] = ['OrderPlaced', 'OrderServed'],
): WebhookEndpointCommand => ({
  type: 'RegisterWebhookEndpoint',
  data: { tenantId, endpointId, url, eventTypes, sealedSecret, registeredAt: at },
});
const rotate: WebhookEndpointCommand = {
  type: 'RotateWebhookEndpointSecret',
  data: { endpointId, sealedSecret: nextSealedSecret, rotatedAt: later, previousSecretExpiresAt: graceEnds },
};
const disable: WebhookEndpointCommand = {
  type: 'DisableWebhookEndpoint',
  data: { endpointId, reason: 'failing for 5 days', disabledAt: later },
};
const enable: WebhookEndpointCommand = {
  type: 'EnableWebhookEndpoint',
  data: { endpointId, enabledAt: later },
};
const remove: WebhookEndpointCommand = {
  type: 'DeleteWebhookEndpoint',
  data: { endpointId, deletedAt: later },
};

const registered: WebhookEndpointEvent = {
  type: 'WebhookEndpointRegistered',
  data: {
    tenantId,
    endpointId,
    url,
    eventTypes: ['OrderPlaced', 'OrderServed'],
    sealedSecret,
    registeredAt: at,
  },
};
const rotated: WebhookEndpointEvent = {
  type: 'WebhookEndpointSecretRotated',
  data: {
    tenantId,
    endpointId,
    sealedSecret: nextSealedSecret,
    rotatedAt: later,
    previousSecretExpiresAt: graceEnds,
  },
};
const disabled: WebhookEndpointEvent = {
  type: 'WebhookEndpointDisabled',
  data: { tenantId, endpointId, reason: 'failing for 5 days', disabledAt: later },
};
const enabled: WebhookEndpointEvent = {
  type: 'WebhookEndpointEnabled',
  data: { tenantId, endpointId, enabledAt: later },
};
const deleted: WebhookEndpointEvent = {
  type: 'WebhookEndpointDeleted',
  data: { tenantId, endpointId, deletedAt: later },
};

describe('RegisterWebhookEndpoint', () => {
  it('registers an endpoint once, with its event types without repeats', () => {
    given([])
      .when(register(['OrderPlaced', 'OrderServed', 'OrderPlaced']))
      .then([registered]);
    given([registered]).when(register()).then(WebhookEndpointAlreadyRegistered, { endpointId });
    given([registered, deleted]).when(register()).then(WebhookEndpointAlreadyRegistered, { endpointId });
  });

  it('refuses no event types and unknown ones, naming them', () => {
    given([]).when(register([])).then(InvalidWebhookEventTypes, { unknown: [] });
    given([])
      .when(register(['OrderPlaced', 'IdempotencyKeyClaimed', 'WebhookEndpointRegistered']))
      .then(InvalidWebhookEventTypes, { unknown: ['IdempotencyKeyClaimed', 'WebhookEndpointRegistered'] });
  });
});

describe('RotateWebhookEndpointSecret', () => {
  it('replaces the secret and keeps the previous one until its grace period ends', () => {
    given([registered]).when(rotate).then([rotated]);
    const state = [registered, rotated].reduce(evolve, initialState());
    expect(state).toMatchObject({
      sealedSecret: nextSealedSecret,
      previousSecret: { sealedSecret, expiresAt: graceEnds },
    });
  });

  it('refuses an endpoint never registered or deleted', () => {
    given([]).when(rotate).then(WebhookEndpointNotFound, { endpointId });
    given([registered, deleted]).when(rotate).then(WebhookEndpointNotFound, { endpointId });
  });
});

describe('DisableWebhookEndpoint and EnableWebhookEndpoint', () => {
  it('disables with a reason and enables again, each a no-op when already so', () => {
    given([registered]).when(disable).then([disabled]);
    given([registered, disabled]).when(disable).then([]);
    given([registered, disabled]).when(enable).then([enabled]);
    given([registered]).when(enable).then([]);
    expect([registered, disabled].reduce(evolve, initialState())).toMatchObject({
      status: 'disabled',
      disabledReason: 'failing for 5 days',
    });
    const again = [registered, disabled, enabled].reduce(evolve, initialState());
    expect(again.status).toBe('enabled');
    expect(again).not.toHaveProperty('disabledReason');
  });
});

describe('DeleteWebhookEndpoint', () => {
  it('deletes once; after that the endpoint is not found', () => {
    given([registered, disabled]).when(remove).then([deleted]);
    given([registered, deleted]).when(remove).then(WebhookEndpointNotFound, { endpointId });
    given([registered, deleted]).when(enable).then(WebhookEndpointNotFound, { endpointId });
  });
});
