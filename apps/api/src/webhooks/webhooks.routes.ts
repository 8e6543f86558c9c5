import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { SettlementRetryPolicy } from '@once/domain/card-settlements';
import { verifyWebhook } from '@once/webhooks';
import { problemView } from '../http/commands/command-schemas.js';
import { HttpProblem, receiveGatewayEvent } from '@once/cafe';
import { readGatewayEvent } from './read-gateway-event.js';

export interface WebhooksRoutesOptions {
  /** The gateway's Standard Webhooks secret; without one every delivery is refused. */
  readonly secret: string | undefined;
  /** The policy of a settlement the inbox starts to flag a mismatched charge. */
  readonly retryPolicy: SettlementRetryPolicy;
}

/**
 * `POST /webhooks/gateway`: the gateway's signed events (Standard Webhooks). The body stays raw bytes until the
 * signature over them verifies (401 `invalid-signature` otherwise, before any JSON parsing or schema); only then is it
 * parsed strictly and validated. Each event is applied once through the inbox, whatever the number of deliveries.
 */
export const webhooksRoutes: FastifyPluginAsyncZod<WebhooksRoutesOptions> = async (
  app,
  { secret, retryPolicy },
) => {
  // This context's JSON bodies are bytes, not values: the signature is checked on exactly what arrived.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    done(null, body);
  });

  app.post(
    '/gateway',
    {
      config: { role: 'public', writesPosition: true },
      schema: {
        operationId: 'receiveGatewayEvent',
        summary: 'Gateway events (signed; applied once per event id)',
        description:
          'Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`) over the raw body; ' +
          'a charge event (`charge.succeeded` or `charge.declined`) whose amount and currency must match the ' +
          'reserved payment, or it is recorded as mismatched and the payment needs attention.',
        tags: ['webhooks'],
        security: [],
        response: {
          200: z.object({ outcome: z.enum(['applied', 'duplicate', 'ignored', 'mismatched']) }),
          400: problemView,
          401: problemView,
        },
      },
    },
    async (request) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const verified =
        secret === undefined ? undefined : verifyWebhook({ secrets: secret, headers: request.headers, body });
      if (!verified?.ok) {
        throw new HttpProblem('invalid-signature', {
          detail: verified && !verified.ok ? verified.reason : 'no gateway webhook secret is configured',
        });
      }
      const event = readGatewayEvent(body);
      if (verified.id !== event.id) {
        throw new HttpProblem('invalid-signature', { detail: 'the webhook-id is not the event id' });
      }
      const outcome = await receiveGatewayEvent(app.eventStore, event, { now: new Date(), retryPolicy });
      request.log.info({ eventId: event.id, outcome }, 'gateway webhook');
      if ('position' in outcome) request.writePosition = outcome.position;
      return { outcome: outcome.kind };
    },
  );
};
