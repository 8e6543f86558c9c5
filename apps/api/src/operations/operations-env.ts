import { z } from 'zod';
import type { OperationsDeps } from './operations-deps.js';

const flag = z
  .enum(['0', '1', 'true', 'false'])
  .optional()
  .transform((value) => (value === undefined ? undefined : value === '1' || value === 'true'));
const milliseconds = (max: number) => z.coerce.number().int().min(0).max(max);

/** The `ONCE_` settings of a long-running api (limits, timeouts, retention, metrics, CORS, demo keys). */
export const operationsEnvSchema = {
  /** `1` seeds the demo tenant's fixed keys even off loopback; `0` never. Default: embedded default on loopback. */
  ONCE_DEMO: flag,
  /** The internal port `/metrics` is served on, apart from the api's; 0 (default) picks a free one and logs it. */
  ONCE_METRICS_PORT: z.coerce.number().int().min(0).max(65_535).default(0),
  ONCE_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** Requests per window per client address (before authentication); 0 turns the limits off. */
  ONCE_RATE_LIMIT_ADDRESS_MAX: z.coerce.number().int().min(0).default(12_000),
  /** Requests per window per tenant (after authentication). */
  ONCE_RATE_LIMIT_TENANT_MAX: z.coerce.number().int().min(0).default(6_000),
  ONCE_RATE_LIMIT_WINDOW_MS: milliseconds(3_600_000).default(60_000),
  /** Comma-separated origins allowed by CORS (`https://till.example`); none: CORS off. */
  ONCE_CORS_ORIGINS: z
    .string()
    .optional()
    .transform((text) =>
      (text ?? '')
        .split(',')
        .map((origin) => origin.trim())
        .filter((origin) => origin !== ''),
    )
    .pipe(z.array(z.url({ protocol: /^https?$/ }))),
  ONCE_REQUEST_TIMEOUT_MS: milliseconds(600_000).default(30_000),
  ONCE_CONNECTION_TIMEOUT_MS: milliseconds(600_000).default(60_000),
  ONCE_STATEMENT_TIMEOUT_MS: milliseconds(600_000).default(30_000),
  ONCE_POOL_CONNECTION_TIMEOUT_MS: milliseconds(600_000).default(5_000),
  ONCE_MAX_WAITING_READS: z.coerce.number().int().min(1).max(100_000).default(1_000),
  ONCE_API_KEY_CACHE_TTL_MS: milliseconds(600_000).default(5_000),
  /** `0` turns the in-process retention scavenger off. */
  ONCE_SCAVENGER: flag,
  ONCE_SCAVENGER_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
  /** Key retention when a route sets none (seconds); 24 h by default. Short values are for soak tests. */
  ONCE_KEY_RETENTION_SECONDS: z.coerce.number().int().min(1).max(31_536_000).optional(),
};

type OperationsEnv = z.infer<z.ZodObject<typeof operationsEnvSchema>>;

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
  requestTimeoutMs: env.ONCE_REQUEST_TIMEOUT_MS,
  connectionTimeoutMs: env.ONCE_CONNECTION_TIMEOUT_MS,
  statementTimeoutMs: env.ONCE_STATEMENT_TIMEOUT_MS,
  poolConnectionTimeoutMs: env.ONCE_POOL_CONNECTION_TIMEOUT_MS,
  maxWaitingReads: env.ONCE_MAX_WAITING_READS,
  apiKeyCacheTtlMs: env.ONCE_API_KEY_CACHE_TTL_MS,
  scavenger: env.ONCE_SCAVENGER === false ? false : { intervalMs: env.ONCE_SCAVENGER_INTERVAL_MS },
  ...(env.ONCE_KEY_RETENTION_SECONDS === undefined
    ? {}
    : { keyRetentionSeconds: env.ONCE_KEY_RETENTION_SECONDS }),
});
