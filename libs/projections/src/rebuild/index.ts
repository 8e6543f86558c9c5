export { rebuildProjection } from './rebuild-projection.js';
export type { RebuildOptions, RebuildOutcome, RebuildProgress } from './rebuild-projection.js';
