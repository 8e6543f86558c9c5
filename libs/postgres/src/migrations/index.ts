export { migrate } from './migrate.js';
export type { Migration, MigrationResult } from './migrate.js';
