import Fastify from 'fastify';
import { createPostgresEventStore } from '@once/event-store/postgres';
import { createIdempotencyEngine } from '@once/idempotency';
import { idempotencyFastifyPlugin } from '@once/idempotency/fastify';
import { startBackgroundWork } from './background.js';
import { balanceOf, earnPoints, memberStream, pointsHandlers, redeemPoints } from './points-ledger.js';

/**
 * The ledger's HTTP API over a PostgreSQL pool (the event store's tables are created on first use), with its
 * background work. `engineOptions` tunes the engine (`leaseMs`, `retentionSeconds`, …).
 */
export const buildApp = async ({ pool, logger = false, engineOptions = {} }) => {
  const app = Fastify({ logger });
  const store = createPostgresEventStore(pool);
  const engine = createIdempotencyEngine({ store, leaseMs: 30_000, ...engineOptions });

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

  const background = startBackgroundWork({
    pool,
    engine,
    handlers: pointsHandlers,
    onError: (error, part) => app.log.warn({ err: error }, `${part} round failed`),
  });
  app.decorate('background', background);
  app.addHook('onClose', () => background.stop());
  return app;
};
