import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { webhookEventTypes } from '@once/domain/webhook-endpoints';
import { getWebhookEndpoint, listWebhookEndpoints } from '@once/outbox';
import { checkWebhookUrl } from '@once/webhooks';
import type { SecretsKeyring, WebhookUrlPolicy } from '@once/webhooks';
import { commandProblems, idempotencyKeyHeader, problemView } from '../http/commands/command-schemas.js';
import {
  deleteWebhookEndpoint,
  disableWebhookEndpoint,
  emptyBody,
  enableWebhookEndpoint,
  HttpProblem,
  registerWebhookEndpoint,
  registerWebhookEndpointBody,
  rotateWebhookSecret,
  rotateWebhookSecretBody,
  webhookEndpointIdParams,
  webhookEndpointView,
  webhookEndpointWithSecret,
} from '@once/cafe';
import { revealSealedSecrets } from './reveal-sealed-secrets.js';

const endpointAnswer = webhookEndpointView.omit({ failingSince: true });
const readProblems = { 400: problemView, 401: problemView, 404: problemView };

/**
 * Webhook endpoints of the caller's tenant. Writes are keyed commands on the endpoint's aggregate (definitions in
 * `webhook-endpoint.commands.ts`, handlers in `webhook-endpoint.handlers.ts`); reads come from the relay's endpoints
 * table, which follows the log (usually milliseconds behind a write). A secret is sealed everywhere it is kept
 * (`secrets`); only the answer of a create or a rotation, and its replays, show it unsealed.
 */
export const webhookEndpointsRoutes: FastifyPluginAsyncZod<{
  urlPolicy: WebhookUrlPolicy;
  secrets: SecretsKeyring;
}> = async (app, { urlPolicy, secrets }) => {
  const tags = ['webhook-endpoints'];
  const revealSecret = revealSealedSecrets(secrets);

  app.command({
    url: '/',
    config: { role: 'admin' },
    schema: {
      operationId: 'registerWebhookEndpoint',
      summary:
        'Register a webhook endpoint (its id is derived from the Idempotency-Key; the secret is shown here)',
      tags,
      headers: idempotencyKeyHeader,
      body: registerWebhookEndpointBody,
      response: { 201: webhookEndpointWithSecret, ...commandProblems },
    },
    // The URL is checked (DNS included) before the key is claimed: a refused URL stores nothing under the key.
    preHandler: async (request) => {
      const { url } = request.body as { readonly url: string };
      const check = await checkWebhookUrl(url, urlPolicy);
      if (!check.ok) throw new HttpProblem('invalid-webhook-url', { detail: check.reason });
    },
    onSend: revealSecret,
    command: registerWebhookEndpoint,
  });

  app.command({
    url: '/:id/rotate-secret',
    config: { role: 'admin' },
    schema: {
      operationId: 'rotateWebhookEndpointSecret',
      summary: 'Rotate the secret (the previous one keeps signing during the grace period)',
      tags,
      headers: idempotencyKeyHeader,
      params: webhookEndpointIdParams,
      body: rotateWebhookSecretBody,
      response: { 200: webhookEndpointWithSecret, ...commandProblems },
    },
    onSend: revealSecret,
    command: rotateWebhookSecret,
  });

  for (const [action, summary, command] of [
    [
      'enable',
      'Enable deliveries again: what was held while disabled goes out, in log order',
      enableWebhookEndpoint,
    ],
    ['disable', 'Stop deliveries until enabled again', disableWebhookEndpoint],
  ] as const) {
    app.command({
      url: `/:id/${action}`,
      config: { role: 'admin' },
      schema: {
        operationId: `${action}WebhookEndpoint`,
        summary,
        tags,
        headers: idempotencyKeyHeader,
        params: webhookEndpointIdParams,
        body: emptyBody,
        response: { 200: endpointAnswer, ...commandProblems },
      },
      command,
    });
  }

  app.command({
    method: 'DELETE',
    url: '/:id',
    config: { role: 'admin' },
    schema: {
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete a webhook endpoint',
      tags,
      headers: idempotencyKeyHeader,
      params: webhookEndpointIdParams,
      response: { 200: z.object({ id: z.uuid(), status: z.literal('deleted') }), ...commandProblems },
    },
    command: deleteWebhookEndpoint,
  });

  app.get(
    '/',
    {
      config: { role: 'admin' },
      schema: {
        operationId: 'listWebhookEndpoints',
        summary: 'The tenant’s webhook endpoints (never their secrets)',
        tags,
        response: { 200: z.object({ endpoints: z.array(webhookEndpointView) }), 401: problemView },
      },
    },
    async (request) => ({ endpoints: [...(await listWebhookEndpoints(app.pg, request.principal.tenantId))] }),
  );

  app.get(
    '/event-types',
    {
      config: { role: 'admin' },
      schema: {
        operationId: 'listWebhookEventTypes',
        summary: 'The event types an endpoint can subscribe to',
        tags,
        response: { 200: z.object({ eventTypes: z.array(z.string()) }), 401: problemView },
      },
    },
    async () => ({ eventTypes: [...webhookEventTypes] }),
  );

  app.get(
    '/:id',
    {
      config: { role: 'admin' },
      schema: {
        operationId: 'getWebhookEndpoint',
        summary: 'One webhook endpoint, with whether it is failing or disabled and why',
        tags,
        params: webhookEndpointIdParams,
        response: { 200: webhookEndpointView, ...readProblems },
      },
    },
    async (request) => {
      const endpoint = await getWebhookEndpoint(app.pg, request.principal.tenantId, request.params.id);
      if (!endpoint)
        throw new HttpProblem('not-found', { detail: `no webhook endpoint ${request.params.id}` });
      return endpoint;
    },
  );
};
