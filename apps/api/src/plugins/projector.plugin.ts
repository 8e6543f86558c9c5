import fp from 'fastify-plugin';
import { startProjector } from '@once/projections';
import { allProjections, expiredKeySweeper } from '@once/read-models';

/**
 * Runs the read-model projections inside the api process (the embedded default and tests). In production the
 * projector runs as its own service (apps/projector); several runners are safe, one leads per projection.
 */
export const projectorPlugin = fp(
  async (app) => {
    const projector = await startProjector({
      pool: app.pg,
      store: app.eventStore,
      projections: allProjections,
      logger: app.log,
      pollIntervalMs: 50,
      tasks: [expiredKeySweeper(app.pg, app.eventStore)],
    });
    app.addHook('onClose', async () => projector.stop());
  },
  { name: 'once-projector', fastify: '5.x', dependencies: ['once-event-store'] },
);
