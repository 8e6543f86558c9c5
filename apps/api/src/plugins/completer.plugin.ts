import fp from 'fastify-plugin';
import { completeAbandonedKeysOnce } from '@once/read-models';
import { upcastFirstFormatClaim } from '../commands/legacy-claims.js';

export interface CompleterPluginOptions {
  /** Pause between rounds (ms). */
  readonly intervalMs: number;
}

/**
 * The completer, in this process: keys left in flight whose lease has ended (the client crashed or gave up, e.g.
 * after a gateway timeout) are finished from their recovery point, exactly as a retry would; a later retry gets the
 * stored answer. The round is the projector's own (`completeAbandonedKeysOnce`): candidates from the
 * `idempotency_keys` read model, one process at a time under an advisory lock.
 */
export const completerPlugin = fp<CompleterPluginOptions>(
  async (app, { intervalMs }) => {
    let timer: NodeJS.Timeout | undefined;
    let round: Promise<void> = Promise.resolve();
    let stopped = false;

    const completer = {
      engine: app.commandEngine,
      handlers: app.commandHandlers,
      upcast: upcastFirstFormatClaim,
      now: () => app.commandEngine.now(),
    };
    const schedule = (): void => {
      timer = setTimeout(() => {
        round = completeAbandonedKeysOnce(app.pg, completer, app.log)
          .then(() => undefined)
          .catch((error: unknown) => app.log.warn({ err: error }, 'completer round failed'))
          .finally(() => {
            if (!stopped) schedule();
          });
      }, intervalMs);
    };

    app.addHook('onReady', async () => schedule());
    app.addHook('onClose', async () => {
      stopped = true;
      clearTimeout(timer);
      await round;
    });
  },
  { name: 'once-completer', fastify: '5.x', dependencies: ['once-idempotency-engine'] },
);
