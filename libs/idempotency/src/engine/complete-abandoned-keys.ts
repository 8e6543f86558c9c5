import type { GlobalPosition } from '@once/event-store';
import { KEY_STREAM_PREFIX } from '../key-log/index.js';
import type { CommandHandler } from './command-handler.js';
import type { ExecuteOutcome } from './execute-outcome.js';
import type { IdempotencyEngine } from './idempotency-engine.js';

export interface CompleteAbandonedKeysOptions {
  readonly engine: IdempotencyEngine;
  /** The handler of a route, as the API registered it; keys of unknown routes are skipped. */
  readonly handlerFor: (route: {
    readonly method: string;
    readonly route: string;
  }) => CommandHandler | undefined;
  /**
   * Key streams to look at (e.g. from the `idempotency_keys` projection). When omitted, the global log is read
   * from `after` filtered by the `idem-` prefix, and every key whose last event leaves it in flight is a candidate.
   */
  readonly candidates?: readonly string[];
  readonly after?: GlobalPosition;
  /** Only keys whose lease ended before this time (epoch ms). Default: the engine's clock. */
  readonly now?: number;
}

export type AbandonedKeyResult =
  | { readonly keyStream: string; readonly outcome: ExecuteOutcome }
  | { readonly keyStream: string; readonly skipped: 'not-in-flight' | 'lease-live' | 'no-handler' };

const finalTypes = new Set(['IdempotencyKeyCompleted', 'IdempotencyKeyReleased']);

const scanInFlightKeys = async (
  engine: IdempotencyEngine,
  after: GlobalPosition | undefined,
): Promise<string[]> => {
  const lastType = new Map<string, string>();
  let checkpoint = after;
  for (;;) {
    const batch = await engine.store.readAll({
      ...(checkpoint === undefined ? {} : { after: checkpoint }),
      filter: { streamPrefixes: [KEY_STREAM_PREFIX] },
      maxCount: 1_000,
    });
    for (const event of batch.events) lastType.set(event.stream, event.type);
    checkpoint = batch.checkpoint ?? checkpoint;
    if (batch.caughtUp || batch.events.length === 0) break;
  }
  return [...lastType].filter(([, type]) => !finalTypes.has(type)).map(([stream]) => stream);
};

/**
 * Finds keys left in flight whose lease has expired (their client crashed or gave up) and finishes them without
 * a client, from their recovery point, exactly as a retry would (rocket-rides-atomic's completer).
 *
 * @example
 * const results = await completeAbandonedKeys({ engine, handlerFor: ({ route }) => handlers[route] });
 */
export const completeAbandonedKeys = async (
  options: CompleteAbandonedKeysOptions,
): Promise<AbandonedKeyResult[]> => {
  const { engine } = options;
  const candidates = options.candidates ?? (await scanInFlightKeys(engine, options.after));
  const results: AbandonedKeyResult[] = [];
  for (const keyStream of candidates) {
    const state = await engine.readKeyState(keyStream);
    if (state.status !== 'inFlight') {
      results.push({ keyStream, skipped: 'not-in-flight' });
      continue;
    }
    if ((options.now ?? engine.now()) < state.leaseExpiresAt) {
      results.push({ keyStream, skipped: 'lease-live' });
      continue;
    }
    const { claim } = state;
    const handler = options.handlerFor({ method: claim.method, route: claim.route });
    if (handler === undefined) {
      results.push({ keyStream, skipped: 'no-handler' });
      continue;
    }
    const outcome = await engine.execute({
      scope: { tenantId: claim.tenantId, actorId: claim.actorId },
      key: claim.key,
      request: {
        method: claim.method,
        route: claim.route,
        params: (claim.request.params ?? {}) as Record<string, unknown>,
        body: claim.request.body,
      },
      handler,
    });
    results.push({ keyStream, outcome });
  }
  return results;
};
