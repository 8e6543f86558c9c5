export { resolveDatabase } from './database.js';
export type { ResolvedDatabase } from './database.js';
export { createJsonLogger } from './json-logger.js';
export type { LogLevel } from './json-logger.js';
export { createProgressDisplay } from './progress-display.js';
export type { ProgressDisplay } from './progress-display.js';
