export { onceDefaults, onceEnvironment } from './once-environment.js';
export type { OnceEnvironment } from './once-environment.js';
export { readEnvironment } from './read-environment.js';
