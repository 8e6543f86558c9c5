import type { Pool } from 'pg';
import type { SettlementRetryPolicy } from '@once/domain/card-settlements';
import type { EventStore } from '@once/event-store';
import { createIdempotencyEngine } from '@once/idempotency';
import type { CommandHandlers, IdempotencyEngine } from '@once/idempotency';
import { startCompleter } from '@once/read-models';
import type { SecretsKeyring } from '@once/webhooks';
import type { ProjectionLogger, RunningTask } from '@once/projections';
import { createCommandHandlers } from '../commands/command-handlers.js';
import { createGatewayClient } from '../gateway/gateway-client.js';
import { defaultSettlementRetryPolicy } from '../invoices/card-settlement.js';

/** What the completer resumes keys with: the api's engine and command handlers. */
export interface ApiCompleterOptions {
  readonly engine: IdempotencyEngine;
  readonly handlers: CommandHandlers;
  /** Pause between rounds (ms). Default 5,000. */
  readonly intervalMs?: number;
}

/**
 * The completer with the api's command handlers: keys left in flight whose lease has ended (the client crashed or
 * gave up) are finished from their recovery point, exactly as a retry would; a command recorded at an older version
 * is upcast to its definition's current one first. One round at a time across every process, under the completer's advisory lock.
 *
 * @example
 * const completer = startApiCompleter(pool, { engine, handlers }, logger);
 */
export const startApiCompleter = (
  pool: Pool,
  { engine, handlers, intervalMs }: ApiCompleterOptions,
  logger: ProjectionLogger,
): RunningTask =>
  startCompleter(
    pool,
    {
      engine,
      handlers,
      now: () => engine.now(),
      ...(intervalMs === undefined ? {} : { intervalMs }),
    },
    logger,
  );

/** What a process without the api needs to build the same engine and handlers. */
export interface CommandCompleterOptions {
  readonly pool: Pool;
  /** The store the api writes to (PostgreSQL in `pool`, or EventStoreDB). */
  readonly store: EventStore;
  /** The card gateway the card-payment handler asks (inquiry before any second charge). */
  readonly gatewayUrl: string;
  /** The api's server keys (`ONCE_SECRETS_KEY`): a resumed command seals and references secrets as the api does. */
  readonly secrets: SecretsKeyring;
  /** How often an unknown card outcome is retried before the payment needs an operator; the api's default when omitted. */
  readonly cardSettlementRetryPolicy?: SettlementRetryPolicy;
  /** The gateway's bearer secret (`ONCE_GATEWAY_API_TOKEN`). */
  readonly gatewayApiToken?: string | undefined;
  /** How long a key the completer takes over is held (ms); the api's default when omitted. */
  readonly leaseMs?: number | undefined;
  /** Key retention when a route sets none (seconds); the api's default when omitted. */
  readonly keyRetentionSeconds?: number | undefined;
  readonly intervalMs?: number;
  readonly logger: ProjectionLogger;
}

/**
 * The completer of the projector process: the api's engine and command handlers over the same store, without the
 * HTTP server.
 *
 * @example
 * const completer = startCommandCompleter({ pool, store, gatewayUrl, secrets, logger });
 * await completer.stop();
 */
export const startCommandCompleter = (options: CommandCompleterOptions): RunningTask => {
  const engine = createIdempotencyEngine({
    store: options.store,
    secretReferenceKeys: options.secrets.referenceKeys,
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
    ...(options.keyRetentionSeconds === undefined ? {} : { retentionSeconds: options.keyRetentionSeconds }),
  });
  const handlers = createCommandHandlers({
    gateway: createGatewayClient({ baseUrl: options.gatewayUrl, apiToken: options.gatewayApiToken }),
    faultPoint: () => undefined,
    readStream: (stream) => options.store.readStream(stream),
    retryPolicy: options.cardSettlementRetryPolicy ?? defaultSettlementRetryPolicy,
    now: () => new Date(engine.now()),
    secrets: options.secrets,
  });
  return startApiCompleter(
    options.pool,
    { engine, handlers, ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }) },
    options.logger,
  );
};
