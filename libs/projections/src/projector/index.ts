export { startProjector } from './start-projector.js';
export type { Projector, ProjectorOptions } from './start-projector.js';
