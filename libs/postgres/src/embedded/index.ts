export {
  startEmbeddedPostgres,
  embeddedConnectionString,
  findFreePort,
  findRunningEmbeddedPostgres,
  readEmbeddedPostgresPassword,
} from './embedded-postgres-server.js';
