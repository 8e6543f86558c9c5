export { startProjector } from './start-projector.js';
export type { Projector, ProjectorOptions, ProjectorTask } from './start-projector.js';
