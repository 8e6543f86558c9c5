import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  defaultMaxReplayEvents,
  deleteWebhookMessage,
  getWebhookEndpoint,
  listWebhookAttempts,
  listWebhookMessages,
  redeliverWebhookMessage,
  replayWebhookRange,
} from '@once/outbox';
import { problemView } from '../http/commands/command-schemas.js';
import { HttpProblem, webhookEndpointIdParams } from '@once/cafe';
import {
  replayWebhookMessagesBody,
  webhookAttemptView,
  webhookAttemptsQuery,
  webhookMessageParams,
  webhookMessageView,
  webhookMessagesQuery,
} from './webhook-delivery.schemas.js';

const problems = { 400: problemView, 401: problemView, 404: problemView };

export interface WebhookDeliveriesRoutesOptions {
  /** The most log events one replay reads; `defaultMaxReplayEvents` (10,000) by default. */
  readonly maxReplayEvents?: number;
}

/**
 * The delivery state of an endpoint: its messages and every attempt, a redelivery of one message, a replay of a time
 * range read from the log, the deletion of a dead or held message. Redelivering and replaying are safe to repeat (no
 * Idempotency-Key): a message goes out with the same `webhook-id`, and a receiver's inbox ignores an id it has applied.
 */
export const webhookDeliveriesRoutes: FastifyPluginAsyncZod<WebhookDeliveriesRoutesOptions> = async (
  app,
  options,
) => {
  const maxReplayEvents = options.maxReplayEvents ?? defaultMaxReplayEvents;
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
        operationId: 'listWebhookMessages',
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
        operationId: 'listWebhookAttempts',
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
        operationId: 'redeliverWebhookMessage',
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

  app.delete(
    '/:id/messages/:messageId',
    {
      config: { role: 'admin' },
      schema: {
        operationId: 'deleteWebhookMessage',
        summary: 'Delete a dead or held message and its attempts (giving up on it)',
        tags,
        params: webhookMessageParams,
        response: { 200: z.object({ deleted: z.literal(1) }), 409: problemView, ...problems },
      },
    },
    async (request) => {
      const endpointId = await ownEndpoint(request.principal.tenantId, request.params.id);
      const deletion = await deleteWebhookMessage(app.pg, endpointId, request.params.messageId);
      switch (deletion) {
        case 'deleted':
          return { deleted: 1 as const };
        case 'not-found':
          throw new HttpProblem('not-found', {
            detail: `no message ${request.params.messageId} for this endpoint`,
          });
        case 'not-dead-or-held':
          throw new HttpProblem('webhook-message-not-removable', {
            detail: `message ${request.params.messageId} is pending or delivered`,
          });
        default: {
          const _exhaustive: never = deletion;
          return _exhaustive;
        }
      }
    },
  );

  app.post(
    '/:id/replay',
    {
      config: { role: 'admin' },
      schema: {
        operationId: 'replayWebhookEvents',
        summary:
          'Deliver again every event of the endpoint’s types appended in [from, to), read from the log, in log order',
        tags,
        params: webhookEndpointIdParams,
        body: replayWebhookMessagesBody,
        response: { 202: z.object({ redelivering: z.number().int() }), 422: problemView, ...problems },
      },
    },
    async (request, reply) => {
      const endpointId = await ownEndpoint(request.principal.tenantId, request.params.id);
      const replay = await replayWebhookRange(
        { pool: app.pg, store: app.eventStore },
        endpointId,
        { from: new Date(request.body.from), to: new Date(request.body.to) },
        { maxEvents: maxReplayEvents },
      );
      switch (replay.outcome) {
        case 'replayed':
          return reply.code(202).send({ redelivering: replay.messages });
        case 'not-found':
          throw new HttpProblem('not-found', { detail: `no webhook endpoint ${endpointId}` });
        case 'too-many-events':
          throw new HttpProblem('webhook-replay-too-large', {
            detail: `the range holds more than ${String(replay.maxEvents)} events: replay shorter ranges`,
            extensions: { maxEvents: replay.maxEvents },
          });
        default: {
          const _exhaustive: never = replay;
          return _exhaustive;
        }
      }
    },
  );
};
