import type { Pool } from 'pg';
import type { EventStore } from '@once/event-store';
import type { ResolveHost, SecretsKeyring, WebhookUrlPolicy } from '@once/webhooks';

/** A pending message as a worker delivers it. */
export interface PendingMessage {
  readonly seq: bigint;
  readonly messageId: string;
  readonly stream: string;
  readonly body: string;
  readonly attempts: number;
  readonly nextAttemptAt: number;
}

/** Where tests inject crashes. */
export interface RelayFaults {
  /** Runs after the receiver answered, before the attempt is recorded. Throw to crash the relay there. */
  readonly afterReceiverAnswered?: (
    message: PendingMessage,
    statusCode: number | undefined,
  ) => void | Promise<void>;
}

export interface RelayLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** Everything the relay is configured with; see `startWebhookRelay` for the defaults. */
export interface WebhookRelayOptions {
  readonly pool: Pool;
  readonly store: EventStore;
  /** The server's keys: endpoints' secrets are sealed in the log and the endpoints table, unsealed to sign. */
  readonly secrets: SecretsKeyring;
  readonly logger?: RelayLogger;
  /** Which URLs may be delivered to; checked again before deliveries (DNS answers change). */
  readonly urlPolicy: WebhookUrlPolicy;
  /** Host resolution for the URL check; DNS by default. */
  readonly resolveHost?: ResolveHost;
  /** Requests in flight per endpoint (messages of one stream are always one at a time, in log order). Default 16. */
  readonly maxInFlightPerEndpoint?: number;
  /** Longest wait before each retry (full jitter); `defaultRetryLadderMs` by default. */
  readonly retryLadderMs?: readonly number[];
  /** An endpoint failing without a single success for this long is disabled. Default 5 days. */
  readonly disableAfterMs?: number;
  /** How long a receiver may take to answer. Default 15 s. */
  readonly requestTimeoutMs?: number;
  /** Pause between reads of the log once caught up. Default 100 ms. */
  readonly pollIntervalMs?: number;
  /** How often a standby tries the lease and the leader checks its lease connection. Default 1,000 ms. */
  readonly leaseRetryMs?: number;
  /** Events per read of the log. Default 1,000. */
  readonly batchSize?: number;
  /** The jitter's random source, [0, 1). `Math.random` by default. */
  readonly random?: () => number;
  /**
   * The clock (ms) that measures how long an endpoint has failed (`disableAfterMs`) and how old a delivered message is
   * (`retentionMs`). `Date.now` by default; tests move a manual one past days.
   */
  readonly now?: () => number;
  /** Delivered messages (and their attempts) are deleted this long after delivery. Default 30 days. */
  readonly retentionMs?: number;
  /** Pause between rounds of pruning. Default 60,000 ms, or a tenth of `retentionMs` when that is shorter. */
  readonly pruneIntervalMs?: number;
  /** Messages deleted per statement while pruning. Default 1,000. */
  readonly pruneBatchSize?: number;
  readonly faults?: RelayFaults;
}

export const silentRelayLogger: RelayLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
