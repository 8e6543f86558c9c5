export { runChaos } from './run-chaos.js';
export type { ChaosOptions } from './run-chaos.js';
export { checkHistory } from './checker/index.js';
export type { SystemFacts, Verdict } from './checker/index.js';
export { spawnSystem, startBalancer, childEnvironment, createApiKey } from './spawn/index.js';
export type { SpawnedSystem, SpawnOptions } from './spawn/index.js';
export type { RunSummary } from './report/index.js';
