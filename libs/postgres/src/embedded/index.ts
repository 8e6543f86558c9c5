export {
  startEmbeddedPostgres,
  embeddedConnectionString,
  findFreePort,
  findRunningEmbeddedPostgres,
  readEmbeddedPostgresPassword,
} from './embedded-postgres-server.js';
export type { EmbeddedPostgresServer, EmbeddedPostgresOptions } from './embedded-postgres-server.js';
