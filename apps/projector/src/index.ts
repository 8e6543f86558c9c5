export { allProjections, startProjector } from '@once/projections';
export type { Projector, ProjectorOptions } from '@once/projections';
