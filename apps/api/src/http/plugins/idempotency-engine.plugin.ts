import fp from 'fastify-plugin';
import { createIdempotencyEngine } from '@once/idempotency';
import type { CommandHandlers, IdempotencyEngine } from '@once/idempotency';
import type { ProcessFaultHook } from '@once/cafe';

declare module 'fastify' {
  interface FastifyInstance {
    /** Runs keyed commands exactly once (docs/ARCHITECTURE.md "The key log"). */
    commandEngine: IdempotencyEngine;
    /** Every command's handler by command type (routes and the completer). */
    commandHandlers: CommandHandlers;
    /** Test-only fault points of the api (`ONCE_FAULT`); a no-op unless armed. */
    faultPoint: ProcessFaultHook;
  }
}

export interface IdempotencyEnginePluginOptions {
  readonly faults?: ProcessFaultHook | undefined;
  /** How long a crashed request holds its key before a retry may take it over. Default 30 s. */
  readonly leaseMs?: number | undefined;
  /** How many completed keys are answered from memory. Default 10,000. */
  readonly completedKeys?: number | undefined;
  /** How many aggregate events the engine keeps in memory. Default 250,000. */
  readonly keptEvents?: number | undefined;
  /** How long a key is kept when its route and handler set no retention (seconds). Default 24 h. */
  readonly keyRetentionSeconds?: number | undefined;
  /** The keys card tokens are referenced under (an HMAC; the secrets keyring's reference keys, current first). */
  readonly secretReferenceKeys: readonly Uint8Array[];
}

/** The idempotency engine over the app's event store, with the api's fault points wired in. */
export const idempotencyEnginePlugin = fp<IdempotencyEnginePluginOptions>(
  async (app, { faults, leaseMs, completedKeys, keptEvents, keyRetentionSeconds, secretReferenceKeys }) => {
    const faultPoint: ProcessFaultHook = faults ?? (() => undefined);
    app.decorate('faultPoint', faultPoint);
    app.decorate(
      'commandEngine',
      createIdempotencyEngine({
        store: app.eventStore,
        secretReferenceKeys,
        faults: (point) => faultPoint(point),
        ...(leaseMs === undefined ? {} : { leaseMs }),
        ...(completedKeys === undefined ? {} : { completedKeys: { capacity: completedKeys } }),
        ...(keptEvents === undefined ? {} : { keptEvents }),
        ...(keyRetentionSeconds === undefined ? {} : { retentionSeconds: keyRetentionSeconds }),
      }),
    );
  },
  { name: 'once-idempotency-engine', fastify: '5.x', dependencies: ['once-event-store'] },
);
