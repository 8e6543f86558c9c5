import type { FastifyRequest } from 'fastify';
import { HttpProblem } from '../problems/index.js';

/**
 * A `preHandler` for commands only an operator may run: a staff key gets 403 `forbidden` before its key is claimed,
 * so nothing is stored for it.
 *
 * @example
 * app.command({ url: '/:id/resolve', preHandler: requireOperator, schema, command: resolveCardPayment });
 */
export const requireOperator = async (request: FastifyRequest): Promise<void> => {
  if (request.principal.role !== 'operator') {
    throw new HttpProblem('forbidden', {
      detail: `${request.routeOptions.url ?? request.url} needs an operator key`,
    });
  }
};
