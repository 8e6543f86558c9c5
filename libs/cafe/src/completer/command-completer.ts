import type { Pool } from 'pg';
import type { EventStore } from '@once/event-store';
import { createIdempotencyEngine } from '@once/idempotency';
import type { RunningCompleter } from '@once/idempotency';
import { startAbandonedKeyCompleter } from '@once/read-models';
import type { ProjectionLogger } from '@once/projections';
import type { SecretsKeyring } from '@once/webhooks';
import { createCommandHandlers } from '../commands/command-handlers.js';
import { createGatewayClient } from '../gateway/gateway-client.js';
import { cardRetryPolicyFromEnv } from './retention-floor.js';

/** The settings the completer reads: the gateway card payments are resumed against, the engine's lease and retention. */
export interface CommandCompleterSettings {
  readonly ONCE_GATEWAY_URL?: string | undefined;
  readonly ONCE_GATEWAY_API_TOKEN?: string | undefined;
  readonly ONCE_LEASE_MS?: number | undefined;
  readonly ONCE_KEY_RETENTION_SECONDS?: number | undefined;
  readonly ONCE_COMPLETER_INTERVAL_MS: number;
  readonly ONCE_CARD_RETRY_ATTEMPTS?: number | undefined;
  readonly ONCE_CARD_RETRY_BASE_MS?: number | undefined;
  readonly ONCE_CARD_RETRY_MAX_MS?: number | undefined;
}

export interface CommandCompleterDeps {
  readonly pool: Pool;
  /** The store commands are written to (PostgreSQL in `pool`, or EventStoreDB). */
  readonly store: EventStore;
  /** The server keys (`ONCE_SECRETS_KEY`): a resumed command seals and references secrets as the api does. */
  readonly secrets: SecretsKeyring;
  /** How long the gateway may take before a charge counts as unknown (ms); the client's own default otherwise. */
  readonly gatewayTimeoutMs?: number | undefined;
}

/**
 * Starts the completer beside the projections: keys left in flight whose lease has ended (the client crashed or gave up)
 * are finished from their recovery point with this library's command handlers, exactly as a retry would; a command
 * recorded at an older version is upcast first. One round at a time across every process, under the completer's
 * advisory lock. Without a gateway there is nothing to resume card payments against: none starts.
 *
 * @param logger where its rounds and failed rounds are logged
 * @example
 * const completer = startCommandCompleter(settings, { pool, store, secrets }, logger);
 * await completer?.stop();
 */
export const startCommandCompleter = (
  settings: CommandCompleterSettings,
  deps: CommandCompleterDeps,
  logger: ProjectionLogger,
): RunningCompleter | undefined => {
  if (settings.ONCE_GATEWAY_URL === undefined) return undefined;
  const engine = createIdempotencyEngine({
    store: deps.store,
    secretReferenceKeys: deps.secrets.referenceKeys,
    ...(settings.ONCE_LEASE_MS === undefined ? {} : { leaseMs: settings.ONCE_LEASE_MS }),
    ...(settings.ONCE_KEY_RETENTION_SECONDS === undefined
      ? {}
      : { retentionSeconds: settings.ONCE_KEY_RETENTION_SECONDS }),
  });
  const handlers = createCommandHandlers({
    gateway: createGatewayClient({
      baseUrl: settings.ONCE_GATEWAY_URL,
      apiToken: settings.ONCE_GATEWAY_API_TOKEN,
      ...(deps.gatewayTimeoutMs === undefined ? {} : { timeoutMs: deps.gatewayTimeoutMs }),
    }),
    faultPoint: () => undefined,
    readStream: (stream) => deps.store.readStream(stream),
    retryPolicy: cardRetryPolicyFromEnv(settings),
    now: () => new Date(engine.now()),
    secrets: deps.secrets,
  });
  return startAbandonedKeyCompleter(
    deps.pool,
    { engine, handlers, now: () => engine.now(), intervalMs: settings.ONCE_COMPLETER_INTERVAL_MS },
    logger,
  );
};
