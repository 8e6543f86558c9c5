export { startProjector } from './start-projector.js';
export type { Projector, ProjectorOptions } from './start-projector.js';
export { startTask } from './projector-task.js';
export type { ProjectorTask, RunningTask } from './projector-task.js';
