import Fastify from 'fastify';
import { createPostgresEventStore } from '@once/event-store/postgres';
import { createIdempotencyEngine } from '@once/idempotency';
import { idempotencyFastifyPlugin } from '@once/idempotency/fastify';
import { balanceOf, earnPoints, memberStream, pointsHandlers, redeemPoints } from './points-ledger.js';

/** The ledger's HTTP API over a PostgreSQL pool (the event store's tables are created on first use). */
export const buildApp = async ({ pool, logger = false }) => {
  const app = Fastify({ logger });
  const store = createPostgresEventStore(pool);
  const engine = createIdempotencyEngine({ store, leaseMs: 30_000 });

  await app.register(idempotencyFastifyPlugin, {
    engine,
    handlers: pointsHandlers,
    // Whose keys these are: your authentication decides; here a cashier names themself in a header.
    getScope: (request) => {
      const cashier = request.headers['x-cashier'];
      return typeof cashier === 'string' ? { tenantId: 'points', actorId: cashier } : undefined;
    },
  });

  app.command({ url: '/members/:memberId/earn', command: earnPoints });
  app.command({ url: '/members/:memberId/redeem', command: redeemPoints });
  app.get('/members/:memberId', async (request) => {
    const { memberId } = request.params;
    return { memberId, balance: balanceOf(await store.readStream(memberStream(memberId))) };
  });
  return app;
};
