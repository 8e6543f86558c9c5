import cors from '@fastify/cors';
import fp from 'fastify-plugin';
import { declarePublic } from '../auth/index.js';
import { positionHeader } from '../consistency/index.js';

/** The response headers a browser client needs to read: replays, when to retry, and where its write landed. */
export const corsExposedHeaders = ['Idempotent-Replayed', 'Retry-After', positionHeader, 'x-request-id'];

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
      methods: ['GET', 'POST'],
      allowedHeaders: [
        'Authorization',
        'Content-Type',
        'Idempotency-Key',
        'Once-Min-Position',
        'x-request-id',
      ],
      exposedHeaders: corsExposedHeaders,
      maxAge: 600,
    });
  },
  { name: 'once-cors', fastify: '5.x' },
);
