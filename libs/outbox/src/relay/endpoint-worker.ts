import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import type { Agent } from 'undici';
import { checkWebhookUrl, webhookHeaders } from '@once/webhooks';
import type { SecretsKeyring, WebhookUrlCheck } from '@once/webhooks';
import { classifyDeliveryError, statusClass, urlRefusalClass } from './delivery-error.js';
import type { DeliveryErrorClass } from './delivery-error.js';
import type { DeliveryRecorder } from './delivery-recorder.js';
import type { EndpointRow } from './endpoint-row.js';
import { loadEndpoint } from './endpoint-row.js';
import { createPinnedAgent } from './pinned-agent.js';
import type { PendingMessage, RelayLogger, WebhookRelayOptions } from './relay-settings.js';
import { retryDelayMs } from './retry-ladder.js';

/** What a worker shares with the relay that runs it. */
export interface WorkerContext {
  readonly pool: Pool;
  readonly recorder: DeliveryRecorder;
  /** Unseals the endpoints' secrets to sign with. */
  readonly secrets: SecretsKeyring;
  readonly logger: RelayLogger;
  readonly settings: Required<
    Pick<
      WebhookRelayOptions,
      | 'urlPolicy'
      | 'maxInFlightPerEndpoint'
      | 'retryLadderMs'
      | 'disableAfterMs'
      | 'requestTimeoutMs'
      | 'random'
      | 'pollIntervalMs'
      | 'now'
    >
  > &
    Pick<WebhookRelayOptions, 'resolveHost' | 'faults'>;
  /** Disables an endpoint that failed for too long (appends its event). */
  readonly disable: (endpoint: EndpointRow, reason: string) => Promise<void>;
  /** Ends with the relay's term as leader. */
  readonly signal: AbortSignal;
}

/** A running endpoint worker. */
export interface EndpointWorker {
  /**
   * `new`: messages were enqueued after the last ones seen. `reload`: older messages may have changed (a redelivery,
   * a replay, an endpoint event); the worker lets its deliveries in flight finish, then reads every pending one again.
   */
  wake(reason: 'new' | 'reload'): void;
  /** True while nothing is in flight (it waits for new messages or a retry's time). */
  idle(): boolean;
  /** Settles when the worker has nothing left to do now (resolves) or crashed (rejects). */
  readonly done: Promise<void>;
}

const fetchLimit = 500;
const urlCheckTtlMs = 60_000;

/**
 * Delivers one endpoint's pending messages. Messages of one stream go one at a time in log order, each only once the
 * previous one is delivered and recorded (or dead-lettered); messages of different streams go concurrently, up to
 * `maxInFlightPerEndpoint`. A failure schedules the message's retry on the ladder and holds back the rest of its
 * stream; the first success after failures brings every waiting retry forward, so an endpoint that comes back gets its
 * backlog at once, in order. An endpoint failing for `disableAfterMs` without a success is disabled.
 *
 * @example
 * const worker = startEndpointWorker(context, endpointId);
 * worker.wake();
 */
export const startEndpointWorker = (context: WorkerContext, endpointId: string): EndpointWorker => {
  const { pool, recorder, settings, signal } = context;
  const inFlight = new Map<string, Promise<void>>();
  let queue: PendingMessage[] = [];
  let endpoint: EndpointRow | undefined;
  let lastSeq = -1n;
  let wantNew = false;
  let wantReload = true;
  let more = false;
  let urlCheck: { at: number; check: WebhookUrlCheck } | undefined;
  let pinned: { key: string; agent: Agent } | undefined;
  let nudge: (() => void) | undefined;
  const poke = (): void => {
    nudge?.();
    nudge = undefined;
  };

  /** Pending messages after `afterSeq`, in log order. */
  const fetchPending = async (afterSeq: bigint): Promise<PendingMessage[]> => {
    const result = await pool.query<{
      seq: string;
      message_id: string;
      stream: string;
      body: string;
      attempts: number;
      next_attempt_at: Date;
    }>(
      `SELECT seq, message_id, stream, body, attempts, next_attempt_at FROM webhook_messages
        WHERE endpoint_id = $1 AND status = 'pending' AND seq > $2 ORDER BY seq LIMIT $3`,
      [endpointId, afterSeq.toString(), fetchLimit],
    );
    more = result.rows.length === fetchLimit;
    const messages = result.rows.map((row) => ({
      seq: BigInt(row.seq),
      messageId: row.message_id,
      stream: row.stream,
      body: row.body,
      attempts: row.attempts,
      nextAttemptAt: row.next_attempt_at.getTime(),
    }));
    lastSeq = messages.at(-1)?.seq ?? lastSeq;
    return messages;
  };

  const checkedUrl = async (url: string): Promise<WebhookUrlCheck> => {
    if (urlCheck && Date.now() - urlCheck.at < urlCheckTtlMs) return urlCheck.check;
    const check = await checkWebhookUrl(url, settings.urlPolicy, settings.resolveHost);
    urlCheck = { at: Date.now(), check };
    return check;
  };

  /** The agent that connects to the checked addresses of the URL, replaced when a later check resolves elsewhere. */
  const agentFor = (url: URL, addresses: readonly string[]): Agent => {
    const key = JSON.stringify([url.origin, addresses]);
    if (pinned?.key === key) return pinned.agent;
    const previous = pinned;
    pinned = { key, agent: createPinnedAgent(url, addresses) };
    // Its requests in flight finish; it opens no new connection.
    void previous?.agent.close().catch(() => undefined);
    return pinned.agent;
  };

  /** One POST to an address the URL check accepted; the status code, or the class of why there is none. */
  const post = async (
    target: EndpointRow,
    message: PendingMessage,
  ): Promise<{ statusCode?: number; error?: DeliveryErrorClass }> => {
    if (!target.secrets.ok) {
      // The operator needs the key id; the tenant only learns that the server cannot sign.
      context.logger.warn({ endpointId, reason: target.secrets.reason }, 'webhook secret cannot be unsealed');
      return { error: 'secret-unavailable' };
    }
    const check = await checkedUrl(target.url);
    if (!check.ok) return { error: urlRefusalClass(check.refusal) };
    const timestamp = Math.floor(Date.now() / 1000);
    const timeout = AbortSignal.timeout(settings.requestTimeoutMs);
    try {
      const response = await agentFor(check.url, check.addresses).request({
        origin: check.url.origin,
        path: `${check.url.pathname}${check.url.search}`,
        method: 'POST',
        body: message.body,
        signal: AbortSignal.any([signal, timeout]),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Once-Webhooks/1',
          ...webhookHeaders(target.secrets.secrets, { id: message.messageId, timestamp, body: message.body }),
        },
      });
      await response.body.dump();
      return { statusCode: response.statusCode };
    } catch (error) {
      return { error: timeout.aborted ? 'timeout' : classifyDeliveryError(error) };
    }
  };

  const markFailing = async (target: EndpointRow, since: Date): Promise<void> => {
    endpoint = { ...target, failingSince: since };
    await pool.query(
      'UPDATE webhook_endpoints SET failing_since = $2 WHERE endpoint_id = $1 AND failing_since IS NULL',
      [endpointId, since],
    );
  };

  /** The endpoint answered again: it is healthy, and every retry waiting for it goes now. */
  const markRecovered = async (target: EndpointRow): Promise<void> => {
    endpoint = { ...target, failingSince: null };
    await pool.query('UPDATE webhook_endpoints SET failing_since = NULL WHERE endpoint_id = $1', [
      endpointId,
    ]);
    await pool.query(
      `UPDATE webhook_messages SET next_attempt_at = now()
        WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at > now()`,
      [endpointId],
    );
    const now = Date.now();
    queue = queue.map((message) => ({ ...message, nextAttemptAt: Math.min(message.nextAttemptAt, now) }));
  };

  const deliver = async (target: EndpointRow, message: PendingMessage): Promise<void> => {
    const startedAt = new Date();
    const started = performance.now();
    const { statusCode, error } = await post(target, message);
    if (signal.aborted) return;
    await settings.faults?.afterReceiverAnswered?.(message, statusCode);
    const durationMs = performance.now() - started;
    const attempt = message.attempts + 1;
    const delivered = statusCode !== undefined && statusCode >= 200 && statusCode < 300;
    const failure = error ?? (delivered || statusCode === undefined ? undefined : statusClass(statusCode));
    const delay = delivered ? undefined : retryDelayMs(settings.retryLadderMs, attempt, settings.random);
    const outcome = delivered ? 'delivered' : delay === undefined ? 'dead' : 'failed';
    const nextAttemptAt = delay === undefined ? undefined : new Date(Date.now() + delay);
    await recorder.record({
      endpointId,
      messageId: message.messageId,
      attempt,
      startedAt,
      durationMs,
      statusCode,
      error: failure,
      outcome,
      nextAttemptAt,
    });
    const current = endpoint ?? target;
    if (delivered) {
      if (current.failingSince !== null) await markRecovered(current);
      return;
    }
    if (outcome === 'dead') {
      context.logger.warn(
        { endpointId, messageId: message.messageId, attempts: attempt },
        'webhook dead-lettered',
      );
    } else {
      // Holds back the rest of its stream until the retry.
      queue.push({ ...message, attempts: attempt, nextAttemptAt: (nextAttemptAt as Date).getTime() });
      queue.sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
    }
    if (current.failingSince === null) await markFailing(current, new Date(settings.now()));
    else if (settings.now() - current.failingSince.getTime() >= settings.disableAfterMs) {
      const reason = `no delivery succeeded since ${current.failingSince.toISOString()}`;
      endpoint = { ...current, status: 'disabled' };
      await context.disable(current, reason);
      context.logger.warn({ endpointId, url: current.url, reason }, 'webhook endpoint disabled');
    }
  };

  /** Starts every message that may go now; returns when the next not-yet-due one is due. */
  const startDue = (target: EndpointRow, fail: (error: unknown) => void): number => {
    const busy = new Set<string>();
    for (const message of inFlight.keys()) busy.add(streamOf.get(message) ?? '');
    const now = Date.now();
    let nextDue = Number.POSITIVE_INFINITY;
    const remaining: PendingMessage[] = [];
    for (const message of queue) {
      if (busy.has(message.stream) || inFlight.size >= settings.maxInFlightPerEndpoint) {
        busy.add(message.stream);
        remaining.push(message);
        continue;
      }
      busy.add(message.stream);
      if (message.nextAttemptAt > now) {
        nextDue = Math.min(nextDue, message.nextAttemptAt);
        remaining.push(message);
        continue;
      }
      streamOf.set(message.messageId, message.stream);
      const delivery = deliver(target, message)
        .catch(fail)
        .finally(() => {
          inFlight.delete(message.messageId);
          streamOf.delete(message.messageId);
          poke();
        });
      inFlight.set(message.messageId, delivery);
    }
    queue = remaining;
    return nextDue;
  };
  const streamOf = new Map<string, string>();

  const run = async (): Promise<void> => {
    let crash: { error: unknown } | undefined;
    const fail = (error: unknown): void => {
      crash ??= { error };
      poke();
    };
    while (!signal.aborted && crash === undefined) {
      if (wantReload && inFlight.size === 0) {
        wantReload = false;
        wantNew = false;
        endpoint = await loadEndpoint(pool, context.secrets, endpointId);
        queue = endpoint?.status === 'enabled' ? await fetchPending(-1n) : [];
      } else if (!wantReload && (wantNew || (more && queue.length < fetchLimit / 2))) {
        wantNew = false;
        endpoint = await loadEndpoint(pool, context.secrets, endpointId);
        if (endpoint?.status === 'enabled') queue.push(...(await fetchPending(lastSeq)));
      }
      if (endpoint?.status !== 'enabled' && inFlight.size === 0) break;
      const nextDue =
        endpoint?.status === 'enabled' && !wantReload ? startDue(endpoint, fail) : Number.POSITIVE_INFINITY;
      if (inFlight.size === 0 && queue.length === 0 && !more && !wantNew && !wantReload) break;
      const woken = new Promise<void>((resolve) => {
        nudge = resolve;
      });
      const waitMs = Number.isFinite(nextDue)
        ? Math.max(0, nextDue - Date.now())
        : settings.pollIntervalMs * 10;
      const waiting = new AbortController();
      const timer = sleep(waitMs, undefined, { signal: AbortSignal.any([signal, waiting.signal]) }).catch(
        () => undefined,
      );
      await Promise.race([woken, timer]);
      waiting.abort();
    }
    await Promise.all(inFlight.values());
    if (crash) throw crash.error;
  };

  /** Closes the worker's connections once nothing is in flight. */
  const closeAgent = async (): Promise<void> => {
    const closing = pinned?.agent;
    pinned = undefined;
    await closing?.close().catch(() => undefined);
  };

  return {
    idle: () => inFlight.size === 0,
    wake: (reason) => {
      if (reason === 'reload') wantReload = true;
      else wantNew = true;
      poke();
    },
    done: run().finally(closeAgent),
  };
};
