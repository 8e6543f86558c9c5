import type { Pool } from 'pg';
import type { EventStore } from '@once/event-store';
import { startWebhookRelay } from '@once/outbox';
import { startProjector } from '@once/projections';
import type { ProjectionLogger, ProjectorTask } from '@once/projections';
import { allProjections, expiredKeySweeper } from '@once/read-models';
import type { OnceEnvironment } from '@once/settings';
import type { SecretsKeyring, WebhookUrlPolicy } from '@once/webhooks';
import { startCommandCompleter } from '../completer/command-completer.js';
import { startRetentionScavenger } from './retention-scavenger.js';
import type { RetentionScavengerDeps } from './retention-scavenger.js';

/** The settings the background work reads, as `@once/settings` parses them (`onceDefaults` for those not set). */
export type BackgroundWorkSettings = Pick<
  OnceEnvironment,
  | 'EVENTSTORE_URL'
  | 'ONCE_PROJECTOR_BATCH_SIZE'
  | 'ONCE_PROJECTOR_POLL_MS'
  | 'ONCE_PROJECTOR_LEASE_RETRY_MS'
  | 'ONCE_WEBHOOK_ALLOW_HTTP'
  | 'ONCE_WEBHOOK_ALLOWED_HOSTS'
  | 'ONCE_WEBHOOK_RETENTION_DAYS'
  | 'ONCE_SCAVENGER'
  | 'ONCE_SCAVENGER_INTERVAL_MS'
  | 'ONCE_EVENTSTORE_SCAVENGE_INTERVAL_SECONDS'
  | 'ONCE_GATEWAY_URL'
  | 'ONCE_GATEWAY_API_TOKEN'
  | 'ONCE_LEASE_MS'
  | 'ONCE_KEY_RETENTION_SECONDS'
  | 'ONCE_COMPLETER_INTERVAL_MS'
  | 'ONCE_CARD_RETRY_ATTEMPTS'
  | 'ONCE_CARD_RETRY_BASE_MS'
  | 'ONCE_CARD_RETRY_MAX_MS'
>;

/** What the background work runs on, and who hears of its scavenger rounds. */
export interface BackgroundWorkDeps extends Pick<
  RetentionScavengerDeps,
  'onScavengerRound' | 'onServerScavenge'
> {
  readonly pool: Pool;
  readonly store: EventStore;
  readonly secrets: SecretsKeyring;
  readonly logger: ProjectionLogger;
  /** Which endpoint URLs the relay delivers to; from `ONCE_WEBHOOK_ALLOW_HTTP` and `ONCE_WEBHOOK_ALLOWED_HOSTS` otherwise. */
  readonly urlPolicy?: WebhookUrlPolicy;
  /** How long the completer waits for the gateway before a charge counts as unknown (ms). */
  readonly gatewayTimeoutMs?: number;
}

/** The background work as it runs. */
export interface BackgroundWork {
  /** Whether the completer runs here (it needs `ONCE_GATEWAY_URL`). */
  readonly completer: boolean;
  /** Stops everything, newest first: the rounds in hand finish and the leases go back. */
  stop(): Promise<void>;
}

/**
 * Everything that runs beside the commands, in one process or thread: the read-model projections with the expired-key
 * sweeper, the webhook relay, the retention scavenger and the completer. Each part leads among every process sharing
 * the database (advisory locks), so the api's in-process default and any number of projector processes may run it at
 * once.
 *
 * @example
 * const work = await startBackgroundWork(env, { pool, store, secrets, logger });
 * await work.stop();
 */
export const startBackgroundWork = async (
  settings: BackgroundWorkSettings,
  deps: BackgroundWorkDeps,
): Promise<BackgroundWork> => {
  const { pool, store, secrets, logger } = deps;
  const running: { stop(): Promise<void> }[] = [];
  const stop = async (): Promise<void> => {
    for (const part of running.reverse()) await part.stop();
  };
  try {
    const tasks: ProjectorTask[] = [expiredKeySweeper(pool, store)];
    running.push(
      await startProjector({
        pool,
        store,
        logger,
        projections: allProjections,
        batchSize: settings.ONCE_PROJECTOR_BATCH_SIZE,
        pollIntervalMs: settings.ONCE_PROJECTOR_POLL_MS,
        leaseRetryMs: settings.ONCE_PROJECTOR_LEASE_RETRY_MS,
        tasks,
      }),
    );
    running.push(
      await startWebhookRelay({
        pool,
        store,
        secrets,
        logger,
        urlPolicy: deps.urlPolicy ?? {
          allowHttp: settings.ONCE_WEBHOOK_ALLOW_HTTP ?? false,
          allowedInternalHosts: settings.ONCE_WEBHOOK_ALLOWED_HOSTS,
        },
        pollIntervalMs: settings.ONCE_PROJECTOR_POLL_MS,
        leaseRetryMs: settings.ONCE_PROJECTOR_LEASE_RETRY_MS,
        retentionMs: settings.ONCE_WEBHOOK_RETENTION_DAYS * 86_400_000,
      }),
    );
    const scavenger = startRetentionScavenger(settings, {
      pool,
      store,
      logger,
      ...(deps.onScavengerRound ? { onScavengerRound: deps.onScavengerRound } : {}),
      ...(deps.onServerScavenge ? { onServerScavenge: deps.onServerScavenge } : {}),
    });
    if (scavenger) running.push(scavenger);
    const completer = startCommandCompleter(
      settings,
      {
        pool,
        store,
        secrets,
        ...(deps.gatewayTimeoutMs === undefined ? {} : { gatewayTimeoutMs: deps.gatewayTimeoutMs }),
      },
      logger,
    );
    if (completer) running.push(completer);
    if (!completer)
      logger.warn({}, 'no ONCE_GATEWAY_URL: abandoned keys wait for their client or another completer');
    return { completer: completer !== undefined, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
};
