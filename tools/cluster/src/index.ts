export {
  clusterDown,
  clusterStatus,
  clusterUp,
  currentLeader,
  killNode,
  killNodePostgres,
  startNode,
  waitForHealthyCluster,
  waitForLeader,
  waitForNewLeader,
} from './cluster-control.js';
export type { ClusterStatus, ClusterUpOptions } from './cluster-control.js';
export { ClusterPrerequisiteError, missingPackages } from './cluster-packages.js';
export { defaultClusterDirectory, nodeNames, primaryUrl, readClusterState } from './cluster-state.js';
export type { ClusterPorts, ClusterState, NodeName } from './cluster-state.js';
export type { ClusterMember } from './patroni-rest.js';
