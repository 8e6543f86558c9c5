import type { Pool } from 'pg';

/** An endpoint as its tenant sees it (never its secrets). */
export interface WebhookEndpointView {
  readonly id: string;
  readonly url: string;
  readonly eventTypes: string[];
  readonly status: 'enabled' | 'disabled';
  readonly disabledReason: string | null;
  readonly failingSince: string | null;
  readonly registeredAt: string;
  readonly previousSecretExpiresAt: string | null;
}

/** One message to one endpoint and where its delivery stands. */
export interface WebhookMessageView {
  readonly messageId: string;
  readonly eventType: string;
  readonly stream: string;
  /** `held`: enqueued while the endpoint was disabled, delivered once it is enabled again. */
  readonly status: 'pending' | 'held' | 'delivered' | 'dead';
  readonly attempts: number;
  readonly appendedAt: string;
  readonly nextAttemptAt: string | null;
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  readonly deliveredAt: string | null;
}

/** One attempt to deliver a message. */
export interface WebhookAttemptView {
  readonly messageId: string;
  readonly attempt: number;
  readonly outcome: 'delivered' | 'failed' | 'dead';
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly nextAttemptAt: string | null;
}

const iso = (value: Date | null): string | null => value?.toISOString() ?? null;

interface EndpointRecord {
  endpoint_id: string;
  url: string;
  event_types: string[];
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  failing_since: Date | null;
  registered_at: Date;
  previous_secret_expires_at: Date | null;
}

const endpointView = (row: EndpointRecord): WebhookEndpointView => ({
  id: row.endpoint_id,
  url: row.url,
  eventTypes: row.event_types,
  status: row.status,
  disabledReason: row.disabled_reason,
  failingSince: iso(row.failing_since),
  registeredAt: row.registered_at.toISOString(),
  previousSecretExpiresAt: iso(row.previous_secret_expires_at),
});

const endpointColumns = `endpoint_id, url, event_types, status, disabled_reason, failing_since, registered_at,
  previous_secret_expires_at`;

/**
 * A tenant's endpoints (deleted ones left out), oldest first.
 * @example const endpoints = await listWebhookEndpoints(pool, tenantId);
 */
export const listWebhookEndpoints = async (
  pool: Pool,
  tenantId: string,
): Promise<readonly WebhookEndpointView[]> =>
  (
    await pool.query<EndpointRecord>(
      `SELECT ${endpointColumns} FROM webhook_endpoints WHERE tenant_id = $1 AND status <> 'deleted'
        ORDER BY registered_at, endpoint_id`,
      [tenantId],
    )
  ).rows.map(endpointView);

/**
 * One endpoint of a tenant; undefined when there is none (or it was deleted).
 * @example const endpoint = await getWebhookEndpoint(pool, tenantId, endpointId);
 */
export const getWebhookEndpoint = async (
  pool: Pool,
  tenantId: string,
  endpointId: string,
): Promise<WebhookEndpointView | undefined> => {
  const row = (
    await pool.query<EndpointRecord>(
      `SELECT ${endpointColumns} FROM webhook_endpoints
        WHERE tenant_id = $1 AND endpoint_id = $2 AND status <> 'deleted'`,
      [tenantId, endpointId],
    )
  ).rows[0];
  return row ? endpointView(row) : undefined;
};

/**
 * An endpoint's messages, newest first, optionally of one status.
 * @example const dead = await listWebhookMessages(pool, endpointId, { status: 'dead', limit: 50 });
 */
export const listWebhookMessages = async (
  pool: Pool,
  endpointId: string,
  filter: { readonly status?: WebhookMessageView['status']; readonly limit: number },
): Promise<readonly WebhookMessageView[]> => {
  const rows = await pool.query<{
    message_id: string;
    event_type: string;
    stream: string;
    status: WebhookMessageView['status'];
    attempts: number;
    appended_at: Date;
    next_attempt_at: Date | null;
    last_status: number | null;
    last_error: string | null;
    delivered_at: Date | null;
  }>(
    `SELECT message_id, event_type, stream, status, attempts, appended_at, next_attempt_at, last_status, last_error,
            delivered_at
       FROM webhook_messages WHERE endpoint_id = $1 AND ($2::text IS NULL OR status = $2)
      ORDER BY seq DESC LIMIT $3`,
    [endpointId, filter.status ?? null, filter.limit],
  );
  return rows.rows.map((row) => ({
    messageId: row.message_id,
    eventType: row.event_type,
    stream: row.stream,
    status: row.status,
    attempts: row.attempts,
    appendedAt: row.appended_at.toISOString(),
    nextAttemptAt: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    lastStatusCode: row.last_status,
    lastError: row.last_error,
    deliveredAt: iso(row.delivered_at),
  }));
};

/**
 * The attempts of an endpoint (or of one of its messages), newest first.
 * @example const attempts = await listWebhookAttempts(pool, endpointId, { messageId, limit: 100 });
 */
export const listWebhookAttempts = async (
  pool: Pool,
  endpointId: string,
  filter: { readonly messageId?: string; readonly limit: number },
): Promise<readonly WebhookAttemptView[]> => {
  const rows = await pool.query<{
    message_id: string;
    attempt: number;
    outcome: WebhookAttemptView['outcome'];
    status_code: number | null;
    error: string | null;
    started_at: Date;
    duration_ms: number;
    next_attempt_at: Date | null;
  }>(
    `SELECT message_id, attempt, outcome, status_code, error, started_at, duration_ms, next_attempt_at
       FROM webhook_attempts WHERE endpoint_id = $1 AND ($2::text IS NULL OR message_id = $2)
      ORDER BY attempt_id DESC LIMIT $3`,
    [endpointId, filter.messageId ?? null, filter.limit],
  );
  return rows.rows.map((row) => ({
    messageId: row.message_id,
    attempt: row.attempt,
    outcome: row.outcome,
    statusCode: row.status_code,
    error: row.error,
    startedAt: row.started_at.toISOString(),
    durationMs: Math.round(row.duration_ms * 100) / 100,
    nextAttemptAt: iso(row.next_attempt_at),
  }));
};

/**
 * Sends one message to its endpoint again, now, with a fresh ladder (delivered, dead or pending alike; held while the
 * endpoint is disabled); false when the endpoint has no such message. The receiver sees the same `webhook-id` and body.
 *
 * @example
 * await redeliverWebhookMessage(pool, endpointId, messageId);
 */
export const redeliverWebhookMessage = async (
  pool: Pool,
  endpointId: string,
  messageId: string,
): Promise<boolean> => {
  const result = await pool.query(
    `UPDATE webhook_messages m
        SET status = CASE e.status WHEN 'enabled' THEN 'pending' ELSE 'held' END, attempts = 0, next_attempt_at = now()
       FROM webhook_endpoints e
      WHERE m.endpoint_id = $1 AND m.message_id = $2 AND e.endpoint_id = m.endpoint_id`,
    [endpointId, messageId],
  );
  return result.rowCount === 1;
};

/**
 * The relay's health, across tenants; messages count for enabled endpoints only (a deleted one's never go), held ones
 * for disabled endpoints.
 */
export interface WebhookDeliveryMetrics {
  /** Attempts by outcome since the start (`delivered`, `failed`, `dead`), pruned ones included. */
  readonly attemptsByOutcome: Readonly<Record<'delivered' | 'failed' | 'dead', number>>;
  /** Messages waiting for a retry (pending after at least one failed attempt). */
  readonly retryBacklog: number;
  /** Messages not delivered yet (pending), and the age of the oldest one in seconds (0 when none). */
  readonly undelivered: number;
  readonly oldestUndeliveredSeconds: number;
  readonly deadLettered: number;
  /** Messages held for disabled endpoints, delivered once they are enabled again. */
  readonly held: number;
}

/**
 * The relay's metrics from its tables, so any process can report them.
 * @example const metrics = await webhookDeliveryMetrics(pool);
 */
export const webhookDeliveryMetrics = async (pool: Pool): Promise<WebhookDeliveryMetrics> => {
  const attempts = await pool.query<{ outcome: 'delivered' | 'failed' | 'dead'; count: string }>(
    `SELECT outcome, sum(count)::bigint AS count FROM (
       SELECT outcome, count(*) AS count FROM webhook_attempts GROUP BY outcome
       UNION ALL SELECT outcome, count FROM webhook_pruned_attempts
     ) totals GROUP BY outcome`,
  );
  const held = await pool.query<{ held: string }>(
    `SELECT count(*) AS held FROM webhook_messages m
       JOIN webhook_endpoints e ON e.endpoint_id = m.endpoint_id AND e.status = 'disabled'
      WHERE m.status = 'held'`,
  );
  const messages = await pool.query<{
    backlog: string;
    undelivered: string;
    oldest: number | null;
    dead: string;
  }>(
    `SELECT count(*) FILTER (WHERE m.status = 'pending' AND m.attempts > 0) AS backlog,
            count(*) FILTER (WHERE m.status = 'pending') AS undelivered,
            extract(epoch FROM now() - min(m.appended_at) FILTER (WHERE m.status = 'pending'))::float8 AS oldest,
            count(*) FILTER (WHERE m.status = 'dead') AS dead
       FROM webhook_messages m
       JOIN webhook_endpoints e ON e.endpoint_id = m.endpoint_id AND e.status = 'enabled'`,
  );
  const byOutcome = { delivered: 0, failed: 0, dead: 0 };
  for (const row of attempts.rows) byOutcome[row.outcome] = Number(row.count);
  const row = messages.rows[0];
  return {
    attemptsByOutcome: byOutcome,
    retryBacklog: Number(row?.backlog ?? 0),
    undelivered: Number(row?.undelivered ?? 0),
    oldestUndeliveredSeconds: Math.max(0, row?.oldest ?? 0),
    deadLettered: Number(row?.dead ?? 0),
    held: Number(held.rows[0]?.held ?? 0),
  };
};
