export { buildApp } from './app.js';
export type { AppDeps } from './app.js';
