import fp from 'fastify-plugin';
import { createIdempotencyEngine } from '@once/idempotency';
import type { IdempotencyEngine } from '@once/idempotency';
import type { ProcessFaultHook } from '../faults/index.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Runs keyed commands exactly once (DESIGN.md "The key log"). */
    commandEngine: IdempotencyEngine;
    /** Test-only fault points of the api (`ONCE_FAULT`); a no-op unless armed. */
    faultPoint: ProcessFaultHook;
    /** `off` only in the benchmark's plain mode: commands run without the idempotency layer. */
    idempotencyMode: 'on' | 'off';
  }
}

export interface IdempotencyEnginePluginOptions {
  readonly faults?: ProcessFaultHook | undefined;
  /** How long a crashed request holds its key before a retry may take it over. Default 30 s. */
  readonly leaseMs?: number | undefined;
  readonly mode?: 'on' | 'off' | undefined;
  /** How long a key is kept when its route and handler set no retention (seconds). Default 24 h. */
  readonly keyRetentionSeconds?: number | undefined;
}

/** The idempotency engine over the app's event store, with the api's fault points wired in. */
export const idempotencyEnginePlugin = fp<IdempotencyEnginePluginOptions>(
  async (app, { faults, leaseMs, mode, keyRetentionSeconds }) => {
    const faultPoint: ProcessFaultHook = faults ?? (() => undefined);
    app.decorate('faultPoint', faultPoint);
    app.decorate('idempotencyMode', mode ?? 'on');
    app.decorate(
      'commandEngine',
      createIdempotencyEngine({
        store: app.eventStore,
        faults: (point) => faultPoint(point),
        ...(leaseMs === undefined ? {} : { leaseMs }),
        ...(keyRetentionSeconds === undefined ? {} : { retentionSeconds: keyRetentionSeconds }),
      }),
    );
  },
  { name: 'once-idempotency-engine', fastify: '5.x', dependencies: ['once-event-store'] },
);
