import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { problemView } from '../commands/command-schemas.js';
import { HttpProblem } from '../problems/index.js';
import { receiveGatewayEvent } from './gateway-inbox.js';
import { verifyWebhook } from '@once/webhooks';
import { gatewayEventSchema, webhookHeaders } from './webhook.schemas.js';

/**
 * `POST /webhooks/gateway`: the gateway's signed events (Standard Webhooks). The signature is checked over the raw
 * body before anything else; each event is applied once through the inbox, whatever the number of deliveries.
 */
export const webhooksRoutes: FastifyPluginAsyncZod<{ secret: string | undefined }> = async (
  app,
  { secret },
) => {
  app.post(
    '/gateway',
    {
      config: { role: 'public' },
      schema: {
        summary: 'Gateway events (signed; applied once per event id)',
        tags: ['webhooks'],
        security: [],
        headers: webhookHeaders,
        body: gatewayEventSchema,
        response: {
          200: z.object({ outcome: z.enum(['applied', 'duplicate', 'ignored']) }),
          401: problemView,
        },
      },
    },
    async (request) => {
      const verified =
        secret === undefined || request.rawBody === undefined
          ? undefined
          : verifyWebhook({ secrets: secret, headers: request.headers, body: request.rawBody });
      if (!verified?.ok || verified.id !== request.body.id) {
        throw new HttpProblem('invalid-signature', {
          detail: verified && !verified.ok ? verified.reason : undefined,
        });
      }
      const outcome = await receiveGatewayEvent(app.eventStore, request.body, new Date());
      request.log.info({ eventId: request.body.id, outcome }, 'gateway webhook');
      if ('position' in outcome) request.writePosition = outcome.position;
      return { outcome: outcome.kind };
    },
  );
};
