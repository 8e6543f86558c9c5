export { startEmbeddedPostgres, findFreePort } from './embedded/index.js';
export type { EmbeddedPostgresServer, EmbeddedPostgresOptions } from './embedded/index.js';
export { migrate } from './migrations/index.js';
export type { Migration, MigrationResult } from './migrations/index.js';
