import { STATUS_CODES } from 'node:http';
import express from 'express';
import { createPostgresEventStore } from '@once/event-store/postgres';
import { createIdempotencyEngine } from '@once/idempotency';
import { createIdempotencyExpress } from '@once/idempotency/express';
import { startBackgroundWork } from './background.js';
import { balanceOf, earnPoints, memberStream, pointsHandlers, redeemPoints } from './points-ledger.js';

/**
 * The ledger's HTTP API over a PostgreSQL pool (the event store's tables are created on first use), with its
 * background work. `engineOptions` tunes the engine (`leaseMs`, `retentionSeconds`, …).
 */
export const buildApp = ({ pool, onError = () => {}, engineOptions = {} }) => {
  const store = createPostgresEventStore(pool);
  const engine = createIdempotencyEngine({ store, leaseMs: 30_000, ...engineOptions });
  const idempotency = createIdempotencyExpress({
    engine,
    handlers: pointsHandlers,
    // Whose keys these are: your authentication decides; here a cashier names themself in a header.
    getScope: (req) => {
      const cashier = req.get('x-cashier');
      return cashier === undefined ? undefined : { tenantId: 'points', actorId: cashier };
    },
    onError,
  });

  const app = express();
  app.use(express.json());
  app.post('/members/:memberId/earn', idempotency.command({ command: earnPoints }));
  app.post('/members/:memberId/redeem', idempotency.command({ command: redeemPoints }));
  app.get('/members/:memberId', async (req, res) => {
    const { memberId } = req.params;
    res.json({ memberId, balance: balanceOf(await store.readStream(memberStream(memberId))) });
  });
  // What reaches here is a malformed body (its 4xx) or a defect (500), answered as a problem.
  app.use((error, req, res, _next) => {
    const status = error.status >= 400 && error.status < 500 ? error.status : 500;
    if (status === 500) onError(error);
    res.status(status).type('application/problem+json').json({ title: STATUS_CODES[status], status });
  });

  const background = startBackgroundWork({ pool, engine, handlers: pointsHandlers, onError });
  return { app, background };
};
