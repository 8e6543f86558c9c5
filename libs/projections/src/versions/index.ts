export {
  dropRetiredVersions,
  ensureLiveVersion,
  getLiveVersion,
  listVersions,
  makeVersionLive,
  startBuildingVersion,
} from './projection-versions.js';
export type { ProjectionVersion } from './projection-versions.js';
