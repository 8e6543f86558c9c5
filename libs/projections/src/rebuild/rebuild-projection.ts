import type { Pool } from 'pg';
import type { EventStore, GlobalPosition } from '@once/event-store';
import { comparePositions, parsePosition } from '@once/event-store';
import { migrateProjectionsSchema } from '../schema/projections-schema.js';
import type { ProjectionDefinition, ProjectionLogger } from '../runner/projection-definition.js';
import type { RunnerFaults } from '../runner/projection-runner.js';
import { startProjectionGroupRunner } from '../runner/projection-runner.js';
import { readLiveCheckpoint } from '../consistency/wait-for-position.js';
import {
  dropRetiredVersions,
  getLiveVersion,
  makeVersionLive,
  startBuildingVersion,
} from '../versions/projection-versions.js';

/** A progress sample of a rebuild (of one projection, or of several read together). */
export interface RebuildProgress {
  /** The projections being rebuilt, with their new versions (`invoices v2, orders v2`). */
  readonly label: string;
  /** Events applied by this run (a resumed run counts from where it resumed). */
  readonly events: number;
  readonly eventsPerSecond: number;
  readonly checkpoint: GlobalPosition;
  /** Share of the log read, estimated from positions against the live versions' checkpoints; undefined when unknown. */
  readonly fraction: number | undefined;
  /** Estimated seconds left; undefined when unknown. */
  readonly etaSeconds: number | undefined;
}

interface RebuildSettings {
  readonly pool: Pool;
  readonly store: EventStore;
  readonly batchSize?: number;
  /** Retired versions whose tables are kept (to switch back to). Default 1. */
  readonly keepRetired?: number;
  readonly onProgress?: (progress: RebuildProgress) => void;
  readonly logger?: ProjectionLogger;
  /** Stops the rebuild between batches; rerunning resumes from its checkpoint. */
  readonly signal?: AbortSignal;
  readonly faults?: RunnerFaults;
}

export interface RebuildOptions extends RebuildSettings {
  readonly projection: ProjectionDefinition;
}

export interface RebuildManyOptions extends RebuildSettings {
  readonly projections: readonly ProjectionDefinition[];
}

/** How a rebuild ended. */
export type RebuildOutcome =
  | {
      readonly status: 'live';
      readonly projection: string;
      readonly version: number;
      readonly previous: number | undefined;
      readonly events: number;
    }
  | {
      readonly status: 'interrupted';
      readonly projection: string;
      readonly version: number;
      readonly events: number;
    };

/**
 * Rebuilds a projection blue/green: a new version fills its own tables from the start of the log while the live
 * version keeps serving; once it has caught up it becomes live in one transaction (its views replace the old ones).
 * Interrupting is safe: a rerun finds the version being built and resumes from its checkpoint.
 *
 * @example
 * const outcome = await rebuildProjection({ pool, store, projection: invoicesProjection });
 */
export const rebuildProjection = async (options: RebuildOptions): Promise<RebuildOutcome> => {
  const [outcome] = await rebuildProjections({ ...options, projections: [options.projection] });
  return outcome as RebuildOutcome;
};

/**
 * Rebuilds several projections blue/green over one read of the log (each batch is one transaction for all of them),
 * then makes each new version live. Same guarantees as `rebuildProjection`.
 *
 * @example
 * const outcomes = await rebuildProjections({ pool, store, projections: allProjections });
 */
export const rebuildProjections = async (options: RebuildManyOptions): Promise<readonly RebuildOutcome[]> => {
  const { pool, projections } = options;
  await migrateProjectionsSchema(pool);
  const members = [];
  for (const projection of projections) {
    const previous = await getLiveVersion(pool, projection.name);
    const building = await startBuildingVersion(pool, projection);
    const targetText = await readLiveCheckpoint(pool, projection.name);
    members.push({
      projection,
      previous,
      building,
      target: targetText === null ? undefined : parsePosition(targetText),
    });
  }
  const target = members
    .map((member) => member.target)
    .reduce<GlobalPosition | undefined>(
      (a, b) => (a === undefined ? b : b === undefined || comparePositions(a, b) >= 0 ? a : b),
      undefined,
    );
  const label = members.map((member) => `${member.projection.name} v${member.building.version}`).join(', ');
  const applied = new Map<string, number>();
  const startedAt = Date.now();
  let baseline: number | undefined;
  let baselineAt = startedAt;

  const runner = startProjectionGroupRunner({
    pool,
    store: options.store,
    targets: members.map((member) => ({ projection: member.projection, version: member.building.version })),
    stopWhenCaughtUp: true,
    leaseRetryMs: 500,
    // A rebuild writes every row once and reads most of them back soon after: keep them all in memory.
    rowCacheSize: 250_000,
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.faults ? { faults: options.faults } : {}),
    onBatch: (report) => {
      applied.set(report.projection, report.totalEvents);
      const events = [...applied.values()].reduce((sum, count) => sum + count, 0);
      const seconds = Math.max((Date.now() - startedAt) / 1000, 0.001);
      const fraction = report.caughtUp ? 1 : estimateFraction(report.checkpoint, target);
      // Speed is measured from the first batch, so a resumed rebuild's ETA ignores what an earlier run did.
      if (baseline === undefined) {
        baseline = fraction;
        baselineAt = Date.now();
      }
      const progressed = fraction === undefined || baseline === undefined ? 0 : fraction - baseline;
      const sinceBaseline = (Date.now() - baselineAt) / 1000;
      const etaSeconds = report.caughtUp
        ? 0
        : fraction !== undefined && progressed > 0
          ? (sinceBaseline / progressed) * (1 - fraction)
          : undefined;
      options.onProgress?.({
        label,
        events,
        eventsPerSecond: events / seconds,
        checkpoint: report.checkpoint,
        fraction,
        etaSeconds,
      });
    },
  });
  await runner.done;
  if (options.signal?.aborted) {
    return members.map((member) => ({
      status: 'interrupted',
      projection: member.projection.name,
      version: member.building.version,
      events: applied.get(member.projection.name) ?? 0,
    }));
  }
  const outcomes: RebuildOutcome[] = [];
  for (const member of members) {
    const { projection, building } = member;
    const switched = await makeVersionLive(pool, projection, building.version);
    if (!switched && (await getLiveVersion(pool, projection.name))?.version !== building.version) {
      throw new Error(`${projection.name} v${building.version} stopped being built during the rebuild`);
    }
    await dropRetiredVersions(pool, projection, options.keepRetired ?? 1);
    outcomes.push({
      status: 'live',
      projection: projection.name,
      version: building.version,
      previous: member.previous?.version,
      events: applied.get(projection.name) ?? 0,
    });
  }
  return outcomes;
};

/** Fraction of the way from the start of the log to `target`, by the positions' second component. */
const estimateFraction = (at: GlobalPosition, target: GlobalPosition | undefined): number | undefined => {
  if (!target || target.prepare <= 0n) return undefined;
  return Math.min(1, Number(at.prepare) / Number(target.prepare));
};
