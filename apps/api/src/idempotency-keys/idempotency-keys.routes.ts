import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { getIdempotencyKey } from '@once/read-models';
import type { IdempotencyKeyRow } from '@once/read-models';
import { problemView } from '../http/commands/command-schemas.js';
import { readConsistencyHeaders, readModelDescription, readYourWrites } from '../http/consistency/index.js';
import { HttpProblem } from '@once/cafe';
import { idempotencyKeyParams, idempotencyKeyView } from './idempotency-key.schemas.js';
import type { IdempotencyKeyView } from './idempotency-key.schemas.js';

const toKeyView = (row: IdempotencyKeyRow): IdempotencyKeyView => {
  const base = { key: row.key, method: row.method, route: row.path };
  switch (row.status) {
    case 'inFlight':
      return {
        ...base,
        status: 'in_flight',
        recoveryPoint: row.recovery_point,
        ...(row.locked_until === null ? {} : { leaseExpiresAt: new Date(row.locked_until).toISOString() }),
      };
    case 'completed':
      return {
        ...base,
        status: 'completed',
        ...(row.response_status === null ? {} : { responseStatus: row.response_status }),
      };
    case 'released':
      return { ...base, status: 'released' };
    default: {
      const _exhaustive: never = row.status;
      return _exhaustive;
    }
  }
};

/**
 * `GET /idempotency-keys/:key`: where the caller's own key stands (in flight, completed, released), from the
 * `idempotency_keys` read model. The key is looked up under the caller's tenant and actor, so another actor's key is
 * not found. (The engine itself decides replays from the key log, never from this table.)
 */
export const idempotencyKeysRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/:key',
    {
      config: { role: 'staff' },
      schema: {
        operationId: 'getIdempotencyKey',
        summary: "Your own Idempotency-Key's state",
        description: readModelDescription(
          'Your key: in flight (with its recovery point and lease), completed, or released.',
        ),
        tags: ['idempotency'],
        headers: readConsistencyHeaders,
        params: idempotencyKeyParams,
        response: { 200: idempotencyKeyView, 400: problemView, 404: problemView, 503: problemView },
      },
    },
    async (request, reply): Promise<IdempotencyKeyView> => {
      const { tenantId, actorId } = request.principal;
      const row = await readYourWrites(request, reply, 'idempotency_keys', () =>
        getIdempotencyKey(app.pg, { tenantId, actorId, key: request.params.key }),
      );
      if (!row)
        throw new HttpProblem('not-found', {
          detail: 'no such key for you (keys are kept at least 24 hours)',
        });
      return toKeyView(row);
    },
  );
};
