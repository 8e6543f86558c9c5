import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { keyStreamName } from '@once/idempotency';
import { problemView } from '../commands/command-schemas.js';
import { HttpProblem } from '../problems/problem.js';
import { idempotencyKeyParams, idempotencyKeyView } from './idempotency-key.schemas.js';
import type { IdempotencyKeyView } from './idempotency-key.schemas.js';

/**
 * `GET /idempotency-keys/:key`: where the caller's own key stands (in flight, completed, released), read from the
 * key log itself. The key is looked up under the caller's tenant and actor, so another actor's key is not found.
 */
export const idempotencyKeysRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/:key',
    {
      schema: {
        summary: "Your own Idempotency-Key's state",
        tags: ['idempotency'],
        params: idempotencyKeyParams,
        response: { 200: idempotencyKeyView, 404: problemView },
      },
    },
    async (request): Promise<IdempotencyKeyView> => {
      const { key } = request.params;
      const state = await app.commandEngine.readKeyState(keyStreamName(request.principal, key));
      switch (state.status) {
        case 'absent':
          throw new HttpProblem('not-found', 'no such key for you (keys are kept at least 24 hours)');
        case 'inFlight':
          return {
            key,
            status: 'in_flight',
            method: state.fingerprint.method,
            route: state.fingerprint.route,
            recoveryPoint: state.recoveryPoint,
            leaseExpiresAt: new Date(state.leaseExpiresAt).toISOString(),
          };
        case 'completed':
          return {
            key,
            status: 'completed',
            method: state.fingerprint.method,
            route: state.fingerprint.route,
            responseStatus: state.response.status,
          };
        case 'released':
          return {
            key,
            status: 'released',
            method: state.fingerprint.method,
            route: state.fingerprint.route,
          };
        default: {
          const _exhaustive: never = state;
          return _exhaustive;
        }
      }
    },
  );
};
