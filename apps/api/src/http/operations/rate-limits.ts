import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { HttpProblem } from '@once/cafe';

/** At most `max` requests per `windowMs`. */
export interface RateLimit {
  readonly max: number;
  readonly windowMs: number;
}

export interface RateLimitSettings {
  /** Per client address, before authentication (every route). */
  readonly perAddress: RateLimit;
  /** Per tenant, after authentication (the authenticated routes). */
  readonly perTenant: RateLimit;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The per-tenant limit, an `onRequest` hook for the authenticated scope (after the auth hook). */
    tenantRateLimit: onRequestAsyncHookHandler;
  }
}

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;

const enforce = async (
  limiter: Limiter,
  request: FastifyRequest,
  reply: FastifyReply,
  who: string,
): Promise<void> => {
  const outcome = await limiter(request);
  if (outcome.isAllowed || !outcome.isExceeded) return;
  void reply.header('ratelimit-limit', String(outcome.max)).header('ratelimit-remaining', '0');
  throw new HttpProblem('rate-limited', {
    detail: `${who} sent more than ${String(outcome.max)} requests in the window; retry in ${String(outcome.ttlInSeconds)} s`,
    retryAfterSeconds: outcome.ttlInSeconds,
  });
};

/**
 * Rate limits with `@fastify/rate-limit` (in memory, per process): per client address on every request before
 * anything else runs, and per tenant as a hook the authenticated scope adds after its auth hook. Past a limit the
 * answer is 429 `rate-limited` with `Retry-After`.
 */
export const rateLimitsPlugin = fp<RateLimitSettings>(
  async (app, settings) => {
    await app.register(rateLimit, { global: false });
    const perAddress = app.createRateLimit({
      max: settings.perAddress.max,
      timeWindow: settings.perAddress.windowMs,
      keyGenerator: (request) => `address:${request.ip}`,
    });
    const perTenant = app.createRateLimit({
      max: settings.perTenant.max,
      timeWindow: settings.perTenant.windowMs,
      keyGenerator: (request) => `tenant:${request.principal.tenantId}`,
    });
    app.addHook('onRequest', async (request, reply) => enforce(perAddress, request, reply, 'this address'));
    app.decorate(
      'tenantRateLimit',
      async function tenantRateLimit(request: FastifyRequest, reply: FastifyReply) {
        await enforce(perTenant, request, reply, 'this tenant');
      },
    );
  },
  { name: 'once-rate-limits', fastify: '5.x' },
);
