import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HttpProblem } from '../problems/index.js';

/**
 * `GET /health`: 200 when PostgreSQL answers `SELECT 1` and, when it holds the streams, EventStoreDB answers a
 * one-event read; otherwise 503 `service-unavailable` naming the store that did not answer.
 */
export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/health',
    {
      config: { role: 'public' },
      schema: {
        summary: 'Liveness and store check',
        tags: ['operations'],
        response: { 200: z.object({ status: z.literal('ok') }) },
      },
    },
    async (request) => {
      try {
        await app.pg.query('SELECT 1');
      } catch (error) {
        request.log.warn({ err: error }, 'health check failed');
        throw new HttpProblem('service-unavailable', { detail: 'PostgreSQL did not answer' });
      }
      const eventStore = app.eventStoreHealth;
      if (eventStore) {
        try {
          await eventStore.check();
        } catch (error) {
          request.log.warn({ err: error }, 'health check failed');
          throw new HttpProblem('service-unavailable', { detail: `${eventStore.name} did not answer` });
        }
      }
      return { status: 'ok' as const };
    },
  );
};
