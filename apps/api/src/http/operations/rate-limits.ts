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

/** The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): each policy's quota, and what is left of it. */
export const rateLimitPolicyHeader = 'RateLimit-Policy';
export const rateLimitHeader = 'RateLimit';

/** The name each limit goes by in the RateLimit fields. */
export type RateLimitPolicyName = 'address' | 'tenant';

/**
 * A limit as a `RateLimit-Policy` list member: its quota `q` per window `w` (whole seconds).
 *
 * @example
 * rateLimitPolicy('tenant', { max: 100, windowMs: 60_000 }); // '"tenant";q=100;w=60'
 */
export const rateLimitPolicy = (name: RateLimitPolicyName, limit: RateLimit): string =>
  `"${name}";q=${String(limit.max)};w=${String(Math.ceil(limit.windowMs / 1000))}`;

// Both limits answer on the same response: each field is a list, one member per policy.
const appendListMember = (reply: FastifyReply, field: string, member: string): void => {
  const current = reply.getHeader(field);
  void reply.header(field, typeof current === 'string' && current !== '' ? `${current}, ${member}` : member);
};

const enforce = async (
  limiter: Limiter,
  name: RateLimitPolicyName,
  limit: RateLimit,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> => {
  const outcome = await limiter(request);
  if (outcome.isAllowed) return;
  appendListMember(reply, rateLimitPolicyHeader, rateLimitPolicy(name, limit));
  appendListMember(
    reply,
    rateLimitHeader,
    `"${name}";r=${String(outcome.remaining)};t=${String(outcome.ttlInSeconds)}`,
  );
  if (!outcome.isExceeded) return;
  throw new HttpProblem('rate-limited', {
    detail: `this ${name} sent more than ${String(outcome.max)} requests in the window; retry in ${String(outcome.ttlInSeconds)} s`,
    retryAfterSeconds: outcome.ttlInSeconds,
  });
};

/**
 * Rate limits with `@fastify/rate-limit` (in memory, per process): per client address on every request before
 * anything else runs, and per tenant as a hook the authenticated scope adds after its auth hook. Every answer carries
 * the IETF RateLimit fields of the limits it passed (`RateLimit-Policy: "address";q=600;w=60` and
 * `RateLimit: "address";r=599;t=60`, a member per limit); past a limit the answer is 429 `rate-limited` with
 * `Retry-After`.
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
    app.addHook('onRequest', async (request, reply) =>
      enforce(perAddress, 'address', settings.perAddress, request, reply),
    );
    app.decorate(
      'tenantRateLimit',
      async function tenantRateLimit(request: FastifyRequest, reply: FastifyReply) {
        await enforce(perTenant, 'tenant', settings.perTenant, request, reply);
      },
    );
  },
  { name: 'once-rate-limits', fastify: '5.x' },
);
