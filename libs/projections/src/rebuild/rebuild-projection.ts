import type { Pool } from 'pg';
import type { EventStore, GlobalPosition } from '@once/event-store';
import { parsePosition } from '@once/event-store';
import { migrateProjectionsSchema } from '../schema/projections-schema.js';
import type { ProjectionDefinition, ProjectionLogger } from '../runner/projection-definition.js';
import type { RunnerFaults } from '../runner/projection-runner.js';
import { startProjectionRunner } from '../runner/projection-runner.js';
import { readLiveCheckpoint } from '../consistency/wait-for-position.js';
import { dropRetiredVersions, getLiveVersion, makeVersionLive, startBuildingVersion } from '../versions/projection-versions.js';

/** A progress sample of a rebuild. */
export interface RebuildProgress {
  readonly projection: string;
  readonly version: number;
  /** Events applied by this run (a resumed run counts from where it resumed). */
  readonly events: number;
  readonly eventsPerSecond: number;
  readonly checkpoint: GlobalPosition;
  /** Share of the log read, estimated from positions against the live version's checkpoint; undefined when unknown. */
  readonly fraction: number | undefined;
  /** Estimated seconds left; undefined when unknown. */
  readonly etaSeconds: number | undefined;
}

export interface RebuildOptions {
  readonly pool: Pool;
  readonly store: EventStore;
  readonly projection: ProjectionDefinition;
  readonly batchSize?: number;
  /** Retired versions whose tables are kept (to switch back to). Default 1. */
  readonly keepRetired?: number;
  readonly onProgress?: (progress: RebuildProgress) => void;
  readonly logger?: ProjectionLogger;
  /** Stops the rebuild between batches; rerunning resumes from its checkpoint. */
  readonly signal?: AbortSignal;
  readonly faults?: RunnerFaults;
}

/** How a rebuild ended. */
export type RebuildOutcome =
  | { readonly status: 'live'; readonly version: number; readonly previous: number | undefined; readonly events: number }
  | { readonly status: 'interrupted'; readonly version: number; readonly events: number };

/**
 * Rebuilds a projection blue/green: a new version fills its own tables from the start of the log while the live
 * version keeps serving; once it has caught up it becomes live in one transaction (its views replace the old ones).
 * Interrupting is safe: a rerun finds the version being built and resumes from its checkpoint.
 *
 * @example
 * const outcome = await rebuildProjection({ pool, store, projection: invoicesProjection });
 */
export const rebuildProjection = async (options: RebuildOptions): Promise<RebuildOutcome> => {
  const { pool, projection } = options;
  await migrateProjectionsSchema(pool);
  const previous = await getLiveVersion(pool, projection.name);
  const building = await startBuildingVersion(pool, projection);
  const targetText = await readLiveCheckpoint(pool, projection.name);
  const target = targetText === null ? undefined : parsePosition(targetText);
  const startedAt = Date.now();
  let events = 0;
  let baseline: number | undefined;
  let baselineAt = startedAt;

  const runner = startProjectionRunner({
    pool,
    store: options.store,
    projection,
    version: building.version,
    stopWhenCaughtUp: true,
    leaseRetryMs: 500,
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.faults ? { faults: options.faults } : {}),
    onBatch: (report) => {
      events = report.totalEvents;
      const seconds = Math.max((Date.now() - startedAt) / 1000, 0.001);
      const eventsPerSecond = events / seconds;
      const fraction = estimateFraction(report.checkpoint, target);
      // Speed is measured from the first batch, so a resumed rebuild's ETA ignores what an earlier run did.
      if (baseline === undefined) {
        baseline = fraction;
        baselineAt = Date.now();
      }
      const progressed = fraction === undefined || baseline === undefined ? 0 : fraction - baseline;
      const sinceBaseline = (Date.now() - baselineAt) / 1000;
      const etaSeconds =
        fraction !== undefined && progressed > 0 ? (sinceBaseline / progressed) * (1 - fraction) : undefined;
      options.onProgress?.({
        projection: projection.name,
        version: building.version,
        events,
        eventsPerSecond,
        checkpoint: report.checkpoint,
        fraction: report.caughtUp ? 1 : fraction,
        etaSeconds: report.caughtUp ? 0 : etaSeconds,
      });
    },
  });
  await runner.done;
  if (options.signal?.aborted) return { status: 'interrupted', version: building.version, events };
  const switched = await makeVersionLive(pool, projection, building.version);
  if (!switched && (await getLiveVersion(pool, projection.name))?.version !== building.version) {
    throw new Error(`${projection.name} v${building.version} stopped being built during the rebuild`);
  }
  await dropRetiredVersions(pool, projection, options.keepRetired ?? 1);
  return { status: 'live', version: building.version, previous: previous?.version, events };
};

/** Fraction of the way from the start of the log to `target`, by the positions' second component. */
const estimateFraction = (at: GlobalPosition, target: GlobalPosition | undefined): number | undefined => {
  if (!target || target.prepare <= 0n) return undefined;
  return Math.min(1, Number(at.prepare) / Number(target.prepare));
};
