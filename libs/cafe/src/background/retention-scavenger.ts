import type { Pool } from 'pg';
import type { EventStore } from '@once/event-store';
import { startServerScavenger } from '@once/event-store/eventstoredb';
import type { ServerScavengeRound } from '@once/event-store/eventstoredb';
import { startStreamScavenger } from '@once/event-store/postgres';
import type { ScavengerRound } from '@once/event-store/postgres';
import type { ProjectionLogger, RunningTask } from '@once/projections';
import { removeKeyRowsOfStreams } from '@once/read-models';

/** The settings the retention scavenger reads. */
export interface RetentionScavengerSettings {
  readonly EVENTSTORE_URL?: string | undefined;
  /** `false` turns retention off; on otherwise. */
  readonly ONCE_SCAVENGER?: boolean | undefined;
  readonly ONCE_SCAVENGER_INTERVAL_MS: number;
  readonly ONCE_EVENTSTORE_SCAVENGE_INTERVAL_SECONDS: number;
}

export interface RetentionScavengerDeps {
  readonly pool: Pool;
  readonly store: EventStore;
  readonly logger: ProjectionLogger;
  /** Told each round this process led on PostgreSQL streams (metrics). */
  readonly onScavengerRound?: (round: ScavengerRound) => void;
  /** Told each scavenge this process started on EventStoreDB (metrics). */
  readonly onServerScavenge?: (round: Extract<ServerScavengeRound, { led: true }>) => void;
}

/**
 * Retention, one leader among every process sharing the database: on PostgreSQL streams, expired key streams are
 * removed whole with their key-table rows; on EventStoreDB, `$maxAge` hides them at once and a scavenge started on the
 * server frees their disk. Nothing when `ONCE_SCAVENGER` is false.
 *
 * @example
 * const scavenger = startRetentionScavenger(settings, { pool, store, logger });
 * await scavenger?.stop();
 */
export const startRetentionScavenger = (
  settings: RetentionScavengerSettings,
  deps: RetentionScavengerDeps,
): RunningTask | undefined => {
  if (settings.ONCE_SCAVENGER === false) return undefined;
  const { pool, logger } = deps;
  if (settings.EVENTSTORE_URL === undefined) {
    return startStreamScavenger({
      pool,
      intervalMs: settings.ONCE_SCAVENGER_INTERVAL_MS,
      onStreamsRemoved: async (streams) => {
        await removeKeyRowsOfStreams(pool, streams);
      },
      onRound: (round) => {
        deps.onScavengerRound?.(round);
        if (round.removedStreams > 0) logger.info({ ...round }, 'scavenger removed expired streams');
      },
      onError: (error) => logger.warn({ err: error }, 'scavenger round failed'),
    });
  }
  return startServerScavenger({
    store: deps.store,
    pool,
    intervalMs: settings.ONCE_EVENTSTORE_SCAVENGE_INTERVAL_SECONDS * 1000,
    onScavenge: (round) => {
      deps.onServerScavenge?.(round);
      logger.info({ scavengeId: round.scavengeId }, 'started a scavenge on EventStoreDB');
    },
    onError: (error) => logger.warn({ err: error }, 'could not start a scavenge on EventStoreDB'),
  });
};
