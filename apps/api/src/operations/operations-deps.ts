import type { MetricsListener } from '../plugins/metrics-server.js';
import type { ScavengerPluginOptions } from '../plugins/scavenger.plugin.js';
import type { EventStoreScavengerPluginOptions } from '../plugins/eventstore-scavenger.plugin.js';
import type { RateLimitSettings } from './rate-limits.js';

/** The limits and housekeeping of a long-running api. Every field is optional: tests leave out what they don't test. */
export interface OperationsDeps {
  /** The retention scavenger beside the in-process projector (PostgreSQL streams); on by default, `false` turns it off. */
  readonly scavenger?: false | ScavengerPluginOptions;
  /** Scavenges scheduled on the EventStoreDB server beside the in-process projector (EventStoreDB streams); daily by default, `false` turns them off. */
  readonly eventStoreScavenger?: false | EventStoreScavengerPluginOptions;
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
  /** Reads that may wait for their `Once-Min-Position` at once. Default 1,000. */
  readonly maxWaitingReads?: number;
  /** The longest a whole request may take before the server answers 408 and closes (ms). Default 30,000. */
  readonly requestTimeoutMs?: number;
  /** How long a connection may stay silent before it is closed (ms). Default 60,000. */
  readonly connectionTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept open (ms). Default 5,000. */
  readonly keepAliveTimeoutMs?: number;
  /** The longest the pool waits for a free connection (ms). Default 5,000. */
  readonly poolConnectionTimeoutMs?: number;
  /** The longest one SQL statement may run (ms). Default 30,000. */
  readonly statementTimeoutMs?: number;
  /** How long a looked-up API key is trusted before it is read again (ms): a revoked key stops within it. Default 5,000. */
  readonly apiKeyCacheTtlMs?: number;
}
