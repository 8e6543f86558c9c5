export { buildApp } from './app.js';
export type { AppDeps } from './app.js';
export { operationsFromEnv, operationsSettings } from './http/operations/index.js';
