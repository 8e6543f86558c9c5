import type { MetricsListener } from '@once/cafe';
import type { RateLimitSettings } from './rate-limits.js';

/** The limits and housekeeping of a long-running api. Every field is optional: tests leave out what they don't test. */
export interface OperationsDeps {
  /**
   * The retention scavenger beside the in-process projector (PostgreSQL streams): on by default, every
   * `ONCE_SCAVENGER_INTERVAL_MS` unless `intervalMs` is given; `false` turns it off.
   */
  readonly scavenger?: false | { readonly intervalMs?: number };
  /**
   * Scavenges scheduled on the EventStoreDB server beside the in-process projector (EventStoreDB streams): every
   * `ONCE_EVENTSTORE_SCAVENGE_INTERVAL_SECONDS` unless `intervalMs` is given; `false` turns them off.
   */
  readonly eventStoreScavenger?: false | { readonly intervalMs?: number };
  /** How long a key is kept when its route sets no retention (seconds); 24 h by default. Short only for soak tests. */
  readonly keyRetentionSeconds?: number;
  /** Serve `/metrics` on its own internal address instead of the api's port. */
  readonly metricsListener?: MetricsListener;
  /** Rate limits per client address and per tenant; none when omitted. */
  readonly rateLimits?: RateLimitSettings;
  /**
   * The proxies whose `X-Forwarded-For` names the client, for rate limits and logs (Fastify's `trustProxy`): a hop
   * count or addresses and CIDR ranges. Omitted: the socket's address is the client's.
   */
  readonly trustProxy?: number | readonly string[];
  /** Origins allowed to call the api from a browser (CORS); CORS is off when omitted or empty. */
  readonly corsOrigins?: readonly string[];
  /** Reads that may wait for their `Once-Min-Position` at once. `ONCE_MAX_WAITING_READS`'s default when omitted. */
  readonly maxWaitingReads?: number;
  /** The longest a whole request may take before the server answers 408 and closes (ms); `ONCE_REQUEST_TIMEOUT_MS`'s default when omitted. */
  readonly requestTimeoutMs?: number;
  /** How long a connection may stay silent before it is closed (ms); `ONCE_CONNECTION_TIMEOUT_MS`'s default when omitted. */
  readonly connectionTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept open (ms). Default 5,000. */
  readonly keepAliveTimeoutMs?: number;
  /** The longest the pool waits for a free connection (ms); `ONCE_POOL_CONNECTION_TIMEOUT_MS`'s default when omitted. */
  readonly poolConnectionTimeoutMs?: number;
  /** How long a pool connection may stay idle before it is closed (ms; 0: never); `ONCE_POOL_IDLE_TIMEOUT_MS`'s default when omitted. */
  readonly poolIdleTimeoutMs?: number;
  /** The longest one SQL statement may run (ms); `ONCE_STATEMENT_TIMEOUT_MS`'s default when omitted. */
  readonly statementTimeoutMs?: number;
  /** How long a looked-up API key is trusted before it is read again (ms): a revoked key stops within it; `ONCE_API_KEY_CACHE_TTL_MS`'s default when omitted. */
  readonly apiKeyCacheTtlMs?: number;
}
