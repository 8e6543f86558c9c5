export { startEmbeddedPostgres, embeddedConnectionString, findFreePort } from './embedded-postgres-server.js';
export type { EmbeddedPostgresServer, EmbeddedPostgresOptions } from './embedded-postgres-server.js';
