import fp from 'fastify-plugin';
import type { RunningTask } from '@once/projections';
import { startApiCompleter } from '@once/cafe';

export interface CompleterPluginOptions {
  /** Pause between rounds (ms). */
  readonly intervalMs: number;
}

/**
 * The completer inside the api process, beside the in-process projector (`npm start`, tests): the same loop the
 * projector process runs, one round at a time across processes under its advisory lock.
 */
export const completerPlugin = fp<CompleterPluginOptions>(
  async (app, { intervalMs }) => {
    let completer: RunningTask | undefined;
    app.addHook('onReady', async () => {
      completer = startApiCompleter(
        app.pg,
        { engine: app.commandEngine, handlers: app.commandHandlers, intervalMs },
        app.log,
      );
    });
    app.addHook('onClose', async () => completer?.stop());
  },
  { name: 'once-completer', fastify: '5.x', dependencies: ['once-idempotency-engine'] },
);
