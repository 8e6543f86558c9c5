export { silentLogger } from './projection-definition.js';
export type { ProjectionDefinition, ProjectionLogger } from './projection-definition.js';
export {
  CheckpointConflictError,
  startProjectionGroupRunner,
  startProjectionRunner,
} from './projection-runner.js';
export type {
  BatchReport,
  ProjectionGroupRunnerOptions,
  ProjectionRunner,
  ProjectionRunnerOptions,
  RunnerFaults,
  RunnerState,
  RunnerTarget,
} from './projection-runner.js';
