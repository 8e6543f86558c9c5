export { defineTable, fromDatabase, physicalTableName, rowRef } from './tables/index.js';
export type {
  ColumnDefinition,
  ColumnType,
  ColumnValue,
  ProjectionTransaction,
  RowRef,
  TableDefinition,
} from './tables/index.js';
export {
  CheckpointConflictError,
  silentLogger,
  startProjectionGroupRunner,
  startProjectionRunner,
} from './runner/index.js';
export type {
  BatchReport,
  ProjectionDefinition,
  ProjectionLogger,
  ProjectionRunner,
  ProjectionGroupRunnerOptions,
  ProjectionRunnerOptions,
  RunnerFaults,
  RunnerTarget,
  RunnerState,
} from './runner/index.js';
export { migrateProjectionsSchema } from './schema/index.js';
export {
  dropRetiredVersions,
  ensureLiveVersion,
  getLiveVersion,
  listVersions,
  makeVersionLive,
  startBuildingVersion,
} from './versions/index.js';
export type { ProjectionVersion } from './versions/index.js';
export { readLiveCheckpoint, waitForPosition } from './consistency/index.js';
export type { WaitForPositionOptions, WaitForPositionResult } from './consistency/index.js';
export { rebuildProjection, rebuildProjections } from './rebuild/index.js';
export type { RebuildManyOptions, RebuildOptions, RebuildOutcome, RebuildProgress } from './rebuild/index.js';
export { startProjector, startTask } from './projector/index.js';
export type { Projector, ProjectorOptions, ProjectorTask, RunningTask } from './projector/index.js';
