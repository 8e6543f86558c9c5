import cors from '@fastify/cors';
import fp from 'fastify-plugin';
import { declarePublic } from '../auth/index.js';
import { minPositionHeader, positionHeader, staleHeader } from '../consistency/index.js';
import { rateLimitHeader, rateLimitPolicyHeader } from './rate-limits.js';

/** Every method a route of the api answers (HEAD with each GET). */
export const corsAllowedMethods = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'];

/** The request headers a route reads that a browser does not send on its own. */
export const corsAllowedHeaders = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  minPositionHeader,
  'x-request-id',
];

/**
 * The response headers a browser client needs to read: replays, when to retry, where its write landed and whether a
 * read is stale, where a created resource or a problem's documentation is, and its rate limits.
 */
export const corsExposedHeaders = [
  'Idempotent-Replayed',
  'Retry-After',
  positionHeader,
  staleHeader,
  'Location',
  'Link',
  rateLimitPolicyHeader,
  rateLimitHeader,
  'x-request-id',
];

/**
 * CORS for the listed origins only (exact `scheme://host[:port]` matches); registered only when some are configured,
 * so the api sends no CORS headers by default.
 */
export const corsPlugin = fp<{ origins: readonly string[] }>(
  async (app, { origins }) => {
    // The preflight route @fastify/cors adds (`OPTIONS *`) cannot declare a role itself; browsers send it without a key.
    app.addHook(
      'onRoute',
      declarePublic((route) => route.method === 'OPTIONS' && route.url === '*'),
    );
    await app.register(cors, {
      origin: [...origins],
      methods: corsAllowedMethods,
      allowedHeaders: corsAllowedHeaders,
      exposedHeaders: corsExposedHeaders,
      maxAge: 600,
    });
  },
  { name: 'once-cors', fastify: '5.x' },
);
