import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  getWebhookEndpoint,
  listWebhookAttempts,
  listWebhookMessages,
  redeliverWebhookMessage,
  replayWebhookMessages,
} from '@once/outbox';
import { problemView } from '../commands/command-schemas.js';
import { HttpProblem } from '../problems/index.js';
import {
  replayWebhookMessagesBody,
  webhookAttemptView,
  webhookAttemptsQuery,
  webhookEndpointIdParams,
  webhookMessageParams,
  webhookMessageView,
  webhookMessagesQuery,
} from './webhook-endpoint.schemas.js';

const problems = { 400: problemView, 401: problemView, 404: problemView };

/**
 * The delivery state of an endpoint: its messages and every attempt, a redelivery of one message, a replay of a time
 * range. Redelivering and replaying are safe to repeat (no Idempotency-Key): a message goes out with the same
 * `webhook-id`, and a receiver's inbox ignores an id it has applied.
 */
export const webhookDeliveriesRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['webhook-endpoints'];
  /** The endpoint's id, once it is known to belong to the caller's tenant. */
  const ownEndpoint = async (tenantId: string, endpointId: string): Promise<string> => {
    const endpoint = await getWebhookEndpoint(app.pg, tenantId, endpointId);
    if (!endpoint) throw new HttpProblem('not-found', { detail: `no webhook endpoint ${endpointId}` });
    return endpoint.id;
  };

  app.get(
    '/:id/messages',
    {
      config: { role: 'admin' },
      schema: {
        summary: 'The endpoint’s messages, newest first: status, attempts, next attempt',
        tags,
        params: webhookEndpointIdParams,
        querystring: webhookMessagesQuery,
        response: { 200: z.object({ messages: z.array(webhookMessageView) }), ...problems },
      },
    },
    async (request) => {
      const endpointId = await ownEndpoint(request.principal.tenantId, request.params.id);
      const { status, limit } = request.query;
      return {
        messages: [
          ...(await listWebhookMessages(app.pg, endpointId, { ...(status ? { status } : {}), limit })),
        ],
      };
    },
  );

  app.get(
    '/:id/attempts',
    {
      config: { role: 'admin' },
      schema: {
        summary:
          'Delivery attempts to the endpoint (or of one message), newest first: status code, time, duration',
        tags,
        params: webhookEndpointIdParams,
        querystring: webhookAttemptsQuery,
        response: { 200: z.object({ attempts: z.array(webhookAttemptView) }), ...problems },
      },
    },
    async (request) => {
      const endpointId = await ownEndpoint(request.principal.tenantId, request.params.id);
      const { messageId, limit } = request.query;
      return {
        attempts: [
          ...(await listWebhookAttempts(app.pg, endpointId, { ...(messageId ? { messageId } : {}), limit })),
        ],
      };
    },
  );

  app.post(
    '/:id/messages/:messageId/redeliver',
    {
      config: { role: 'admin' },
      schema: {
        summary: 'Deliver one message again, now, with a fresh retry ladder',
        tags,
        params: webhookMessageParams,
        response: { 202: z.object({ redelivering: z.literal(1) }), ...problems },
      },
    },
    async (request, reply) => {
      const endpointId = await ownEndpoint(request.principal.tenantId, request.params.id);
      if (!(await redeliverWebhookMessage(app.pg, endpointId, request.params.messageId))) {
        throw new HttpProblem('not-found', {
          detail: `no message ${request.params.messageId} for this endpoint`,
        });
      }
      return reply.code(202).send({ redelivering: 1 });
    },
  );

  app.post(
    '/:id/replay',
    {
      config: { role: 'admin' },
      schema: {
        summary: 'Deliver again every message of events appended in [from, to), in log order',
        tags,
        params: webhookEndpointIdParams,
        body: replayWebhookMessagesBody,
        response: { 202: z.object({ redelivering: z.number().int() }), ...problems },
      },
    },
    async (request, reply) => {
      const endpointId = await ownEndpoint(request.principal.tenantId, request.params.id);
      const redelivering = await replayWebhookMessages(app.pg, endpointId, {
        from: new Date(request.body.from),
        to: new Date(request.body.to),
      });
      return reply.code(202).send({ redelivering });
    },
  );
};
