import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Who may use the fault controls (`/admin/faults` and the `gateway-fault` header): anyone (`open`, for tests and a
 * simulator on loopback), nobody (`closed`), or callers that send the token in `gateway-fault-token`.
 */
export type FaultAccess = 'open' | 'closed' | { readonly token: string };

/** The request header that carries the fault-control token. */
export const faultTokenHeader = 'gateway-fault-token';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Whether this request may use the fault controls. */
export const faultControlsAllowed = (access: FaultAccess, request: FastifyRequest): boolean => {
  if (access === 'open') return true;
  if (access === 'closed') return false;
  const offered = request.headers[faultTokenHeader];
  return typeof offered === 'string' && timingSafeEqual(digest(offered), digest(access.token));
};

/**
 * Answers 401 when the request may not use the fault controls, returning the sent reply (an `onRequest` hook
 * returns it to stop there); undefined otherwise.
 *
 * @example
 * app.addHook('onRequest', async (request, reply) => refuseFaultControls(access, request, reply));
 */
export const refuseFaultControls = async (
  access: FaultAccess,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply | undefined> => {
  if (faultControlsAllowed(access, request)) return undefined;
  return reply
    .code(401)
    .type('application/problem+json')
    .send({
      type: '/problems/fault-controls-locked',
      title: 'fault-controls-locked',
      status: 401,
      detail: `the fault controls need the ${faultTokenHeader} header with the simulator's fault token`,
    });
};
