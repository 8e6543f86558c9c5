export { silentLogger } from './projection-definition.js';
export type { ProjectionDefinition, ProjectionLogger } from './projection-definition.js';
export { CheckpointConflictError, startProjectionRunner } from './projection-runner.js';
export type { BatchReport, ProjectionRunner, ProjectionRunnerOptions, RunnerFaults, RunnerState } from './projection-runner.js';
