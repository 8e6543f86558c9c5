import type { OnceEnvironment } from '@once/settings';
import type { OperationsDeps } from './operations-deps.js';

/** The `ONCE_` settings of a long-running api (limits, timeouts, retention, metrics, CORS, demo keys), to pick. */
export const operationsSettings = {
  ONCE_DEMO: true,
  ONCE_METRICS_PORT: true,
  ONCE_METRICS_HOST: true,
  ONCE_RATE_LIMIT_ADDRESS_MAX: true,
  ONCE_RATE_LIMIT_TENANT_MAX: true,
  ONCE_RATE_LIMIT_WINDOW_MS: true,
  ONCE_CORS_ORIGINS: true,
  ONCE_TRUST_PROXY: true,
  ONCE_REQUEST_TIMEOUT_MS: true,
  ONCE_CONNECTION_TIMEOUT_MS: true,
  ONCE_STATEMENT_TIMEOUT_MS: true,
  ONCE_POOL_CONNECTION_TIMEOUT_MS: true,
  ONCE_POOL_IDLE_TIMEOUT_MS: true,
  ONCE_MAX_WAITING_READS: true,
  ONCE_API_KEY_CACHE_TTL_MS: true,
  ONCE_SCAVENGER: true,
  ONCE_SCAVENGER_INTERVAL_MS: true,
  ONCE_EVENTSTORE_SCAVENGE_INTERVAL_SECONDS: true,
  ONCE_KEY_RETENTION_SECONDS: true,
} as const;

type OperationsEnv = Pick<OnceEnvironment, keyof typeof operationsSettings>;

/**
 * The api's operations settings from its parsed environment.
 *
 * @example
 * buildApp({ …, operations: operationsFromEnv(env) });
 */
export const operationsFromEnv = (env: OperationsEnv): OperationsDeps => ({
  metricsListener: { port: env.ONCE_METRICS_PORT, host: env.ONCE_METRICS_HOST },
  ...(env.ONCE_RATE_LIMIT_ADDRESS_MAX > 0 && env.ONCE_RATE_LIMIT_TENANT_MAX > 0
    ? {
        rateLimits: {
          perAddress: { max: env.ONCE_RATE_LIMIT_ADDRESS_MAX, windowMs: env.ONCE_RATE_LIMIT_WINDOW_MS },
          perTenant: { max: env.ONCE_RATE_LIMIT_TENANT_MAX, windowMs: env.ONCE_RATE_LIMIT_WINDOW_MS },
        },
      }
    : {}),
  corsOrigins: env.ONCE_CORS_ORIGINS,
  ...(env.ONCE_TRUST_PROXY === undefined ? {} : { trustProxy: env.ONCE_TRUST_PROXY }),
  requestTimeoutMs: env.ONCE_REQUEST_TIMEOUT_MS,
  connectionTimeoutMs: env.ONCE_CONNECTION_TIMEOUT_MS,
  statementTimeoutMs: env.ONCE_STATEMENT_TIMEOUT_MS,
  poolConnectionTimeoutMs: env.ONCE_POOL_CONNECTION_TIMEOUT_MS,
  poolIdleTimeoutMs: env.ONCE_POOL_IDLE_TIMEOUT_MS,
  maxWaitingReads: env.ONCE_MAX_WAITING_READS,
  apiKeyCacheTtlMs: env.ONCE_API_KEY_CACHE_TTL_MS,
  scavenger: env.ONCE_SCAVENGER === false ? false : { intervalMs: env.ONCE_SCAVENGER_INTERVAL_MS },
  eventStoreScavenger:
    env.ONCE_SCAVENGER === false
      ? false
      : { intervalMs: env.ONCE_EVENTSTORE_SCAVENGE_INTERVAL_SECONDS * 1000 },
  ...(env.ONCE_KEY_RETENTION_SECONDS === undefined
    ? {}
    : { keyRetentionSeconds: env.ONCE_KEY_RETENTION_SECONDS }),
});
