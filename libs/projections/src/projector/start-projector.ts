import type { Pool } from 'pg';
import type { EventStore } from '@once/event-store';
import type { ProjectionDefinition, ProjectionLogger } from '../runner/projection-definition.js';
import { silentLogger } from '../runner/projection-definition.js';
import type { ProjectionRunner, RunnerState, RunnerTarget } from '../runner/projection-runner.js';
import { startProjectionGroupRunner } from '../runner/projection-runner.js';
import { rebuildProjection } from '../rebuild/rebuild-projection.js';
import { migrateProjectionsSchema } from '../schema/projections-schema.js';
import { ensureLiveVersion, getLiveVersion } from '../versions/projection-versions.js';
import { abortableSleep } from '../runner/abortable-sleep.js';
import { startTask } from './projector-task.js';
import type { ProjectorTask } from './projector-task.js';

export interface ProjectorOptions {
  readonly pool: Pool;
  readonly store: EventStore;
  readonly logger?: ProjectionLogger;
  /** The projections to run. */
  readonly projections: readonly ProjectionDefinition[];
  readonly batchSize?: number;
  readonly pollIntervalMs?: number;
  /** How often a standby tries the lease, and how often the live version is checked. Default 1,000 ms. */
  readonly leaseRetryMs?: number;
  /** Pause before restarting a projection whose batch failed. Default 2,000 ms. */
  readonly restartDelayMs?: number;
  /** Work repeated beside the projections until the projector stops (e.g. finishing abandoned keys). */
  readonly tasks?: readonly ProjectorTask[];
}

/** The projections of one process: each a leader or a standby. */
export interface Projector {
  /** Each projection's runner state (`standby` while another process leads it). */
  states(): Readonly<Record<string, RunnerState>>;
  /** Stops every runner and gives the leases back. */
  stop(): Promise<void>;
}

/**
 * Runs every projection: creates its schema and first version on first start, follows the log as the single writer of
 * the live version (or waits as a standby), switches to a new version when a rebuild makes one live, rebuilds
 * blue/green when the code's definition revision differs from the live version's, and restarts after failures.
 *
 * @example
 * const projector = await startProjector({ pool, store, projections: [notesProjection] });
 * await projector.stop();
 */
export const startProjector = async (options: ProjectorOptions): Promise<Projector> => {
  const { pool, store } = options;
  const logger = options.logger ?? silentLogger;
  const leaseRetryMs = options.leaseRetryMs ?? 1000;
  const restartDelayMs = options.restartDelayMs ?? 2000;
  const stopController = new AbortController();
  const states: Record<string, RunnerState> = {};
  await migrateProjectionsSchema(pool);

  // Projections whose live version another definition built, each rebuilt blue/green while the others run.
  const rebuilds = new Map<string, Promise<void>>();
  let rebuildFinished: () => void = () => undefined;
  const startRebuild = (
    projection: ProjectionDefinition,
    live: { version: number; definitionVersion: number },
  ) => {
    if (rebuilds.has(projection.name)) return;
    logger.warn(
      {
        projection: projection.name,
        live: live.version,
        built: live.definitionVersion,
        wanted: projection.version,
      },
      'live projection was built by another definition; rebuilding blue/green',
    );
    states[projection.name] = 'standby';
    const rebuild = rebuildProjection({ pool, store, projection, logger, signal: stopController.signal })
      .then(() => undefined)
      .catch(async (error: unknown) => {
        if (stopController.signal.aborted) return;
        logger.error({ projection: projection.name, err: error }, 'rebuild failed; retrying');
        await abortableSleep(restartDelayMs, stopController.signal);
      })
      .finally(() => {
        rebuilds.delete(projection.name);
        rebuildFinished();
      });
    rebuilds.set(projection.name, rebuild);
  };

  /**
   * Every projection whose live version this code built runs in ONE group runner: one read of the log per batch and
   * one transaction that applies every projection's share and moves every checkpoint (four runners had read and
   * committed the same events four times). A projection being rebuilt joins when its new version goes live.
   */
  const supervise = async (): Promise<void> => {
    for (const projection of options.projections) states[projection.name] = 'starting';
    while (!stopController.signal.aborted) {
      try {
        // Made before the live versions are read, so a rebuild that ends meanwhile still restarts the group.
        const rebuilt = new Promise<void>((resolve) => {
          rebuildFinished = resolve;
        });
        const targets: RunnerTarget[] = [];
        for (const projection of options.projections) {
          const live = await ensureLiveVersion(pool, projection);
          if (live.definitionVersion === projection.version)
            targets.push({ projection, version: live.version });
          else startRebuild(projection, live);
        }
        if (targets.length === 0) {
          await Promise.race([rebuilt, abortableSleep(leaseRetryMs, stopController.signal)]);
          continue;
        }
        const runner = startProjectionGroupRunner({
          pool,
          store,
          targets,
          logger,
          leaseRetryMs,
          ...(options.batchSize ? { batchSize: options.batchSize } : {}),
          ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
          onStateChange: (state) => {
            for (const { projection } of targets) states[projection.name] = state;
          },
        });
        await Promise.race([runner.done, untilLiveVersionChanges(targets, runner), rebuilt]);
        await runner.stop();
        await runner.done;
      } catch (error) {
        if (stopController.signal.aborted) break;
        logger.error({ err: error }, 'projections failed; restarting');
        await abortableSleep(restartDelayMs, stopController.signal);
      }
    }
    await Promise.all(rebuilds.values());
    for (const projection of options.projections) states[projection.name] = 'stopped';
  };

  const untilLiveVersionChanges = async (
    targets: readonly RunnerTarget[],
    runner: ProjectionRunner,
  ): Promise<void> => {
    while (!stopController.signal.aborted && runner.state() !== 'stopped') {
      await abortableSleep(leaseRetryMs, stopController.signal);
      for (const { projection, version } of targets) {
        const live = await getLiveVersion(pool, projection.name).catch(() => undefined);
        if (live && live.version !== version) return;
      }
    }
  };

  const supervisor = supervise();
  const tasks = (options.tasks ?? []).map((task) => startTask(task, logger));
  return {
    states: () => ({ ...states }),
    stop: async () => {
      stopController.abort();
      await Promise.all([supervisor, ...tasks.map((task) => task.stop())]);
    },
  };
};
