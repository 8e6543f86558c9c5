export { childEnvironment } from './child-environment.js';
export type { ChildRole, ChildSettings } from './child-environment.js';
export {
  killRunningChildren,
  readyWhenHealthy,
  readyWhenPrinted,
  startManagedProcess,
} from './managed-process.js';
export type { ManagedProcess, ManagedProcessOptions } from './managed-process.js';
export { createApiKey, nodeScript, repositoryRoot } from './once-scripts.js';
export type { IssuedApiKey } from './once-scripts.js';
export { startPostgresNode } from './postgres-node.js';
export type { PostgresNode } from './postgres-node.js';
export { startBalancer } from './round-robin-balancer.js';
export type { Balancer } from './round-robin-balancer.js';
export { spawnSystem } from './spawned-system.js';
export type { SpawnedSystem, SpawnOptions } from './spawned-system.js';
export { defaultRecoveryTimeoutMs, openClusterDatabase } from './cluster-database.js';
export type { ClusterDatabase, LeaderKill } from './cluster-database.js';
