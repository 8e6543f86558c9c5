export { rebuildProjection, rebuildProjections } from './rebuild-projection.js';
export type {
  RebuildManyOptions,
  RebuildOptions,
  RebuildOutcome,
  RebuildProgress,
} from './rebuild-projection.js';
