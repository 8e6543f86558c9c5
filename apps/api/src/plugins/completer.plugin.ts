import fp from 'fastify-plugin';
import { completeAbandonedKeys } from '@once/idempotency';
import { listAbandonedKeys } from '@once/projections';
import type { CommandRegistry } from '../commands/command-registry.js';

export interface CompleterPluginOptions {
  readonly registry: CommandRegistry;
  /** Pause between sweeps (ms). */
  readonly intervalMs: number;
}

/**
 * The completer: keys left in flight whose lease has ended (the client crashed or gave up, e.g. after a gateway
 * timeout) are finished from their recovery point, exactly as a retry would; a later retry gets the stored answer.
 * Candidates come from the `idempotency_keys` read model; several replicas may sweep, the key's lease picks one.
 */
export const completerPlugin = fp<CompleterPluginOptions>(
  async (app, { registry, intervalMs }) => {
    const engine = app.commandEngine;
    let timer: NodeJS.Timeout | undefined;
    let sweeping: Promise<void> = Promise.resolve();
    let stopped = false;

    const sweep = async (): Promise<void> => {
      const abandoned = await listAbandonedKeys(app.pg, { now: new Date(engine.now()), limit: 50 });
      for (const row of abandoned) {
        if (stopped) return;
        const state = await engine.readKeyState(row.stream);
        if (state.status !== 'inFlight') continue;
        const { method, route } = state.claim;
        const handler = registry.handlerFor({ method, route, body: state.claim.request.body });
        if (!handler) continue;
        const [result] = await completeAbandonedKeys({
          engine,
          candidates: [row.stream],
          handlerFor: () => handler,
        });
        if (result && 'outcome' in result) {
          app.log.info(
            { keyStream: row.stream, route, outcome: result.outcome.kind },
            'completer resumed a key',
          );
        }
      }
    };

    const schedule = (): void => {
      timer = setTimeout(() => {
        sweeping = sweep()
          .catch((error: unknown) => app.log.warn({ err: error }, 'completer sweep failed'))
          .finally(() => {
            if (!stopped) schedule();
          });
      }, intervalMs);
    };

    app.addHook('onReady', async () => schedule());
    app.addHook('onClose', async () => {
      stopped = true;
      clearTimeout(timer);
      await sweeping;
    });
  },
  { name: 'once-completer', fastify: '5.x', dependencies: ['once-idempotency-engine'] },
);
