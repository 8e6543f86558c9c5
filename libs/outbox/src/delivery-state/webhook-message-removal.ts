import type { Pool } from 'pg';

/**
 * Deletes the messages the `doomed` CTE selects (`endpoint_id`, `message_id`) with their attempts, and adds those
 * attempts to the pruned tally, so the attempt counters never go down. Answers `messages` and `attempts` removed.
 */
const removeMessagesSql = (doomed: string): string => `
  WITH doomed AS (${doomed}),
  gone AS (
    DELETE FROM webhook_messages m USING doomed d
     WHERE m.endpoint_id = d.endpoint_id AND m.message_id = d.message_id
    RETURNING m.endpoint_id, m.message_id
  ), attempts AS (
    DELETE FROM webhook_attempts a USING gone g
     WHERE a.endpoint_id = g.endpoint_id AND a.message_id = g.message_id
    RETURNING a.outcome
  ), tally AS (
    INSERT INTO webhook_pruned_attempts (outcome, count)
    SELECT outcome, count(*) FROM attempts GROUP BY outcome
    ON CONFLICT (outcome) DO UPDATE SET count = webhook_pruned_attempts.count + EXCLUDED.count
  )
  SELECT (SELECT count(*) FROM gone) AS messages, (SELECT count(*) FROM attempts) AS attempts`;

/** What one round of pruning removed. */
export interface PrunedWebhookMessages {
  readonly messages: number;
  readonly attempts: number;
}

/**
 * Deletes up to `batchSize` messages delivered before `olderThan`, oldest first, with their attempts. Pending, held and
 * dead messages are never pruned. Call again while it removes a whole batch.
 *
 * @example
 * const { messages } = await pruneDeliveredWebhookMessages(pool, new Date(Date.now() - 30 * 86_400_000), 1_000);
 */
export const pruneDeliveredWebhookMessages = async (
  pool: Pool,
  olderThan: Date,
  batchSize: number,
): Promise<PrunedWebhookMessages> => {
  const result = await pool.query<{ messages: string; attempts: string }>(
    removeMessagesSql(`
      SELECT endpoint_id, message_id FROM webhook_messages
       WHERE status = 'delivered' AND delivered_at < $1
       ORDER BY delivered_at LIMIT $2 FOR UPDATE SKIP LOCKED`),
    [olderThan, batchSize],
  );
  const row = result.rows[0];
  return { messages: Number(row?.messages ?? 0), attempts: Number(row?.attempts ?? 0) };
};

/** How an admin's delete of one message ended. */
export type WebhookMessageDeletion = 'deleted' | 'not-found' | 'not-dead-or-held';

/**
 * Deletes one dead or held message of an endpoint with its attempts (an admin giving up on it); a pending or
 * delivered one is left (`not-dead-or-held`).
 *
 * @example
 * const outcome = await deleteWebhookMessage(pool, endpointId, messageId); // 'deleted'
 */
export const deleteWebhookMessage = async (
  pool: Pool,
  endpointId: string,
  messageId: string,
): Promise<WebhookMessageDeletion> => {
  const removed = await pool.query<{ messages: string }>(
    removeMessagesSql(`
      SELECT endpoint_id, message_id FROM webhook_messages
       WHERE endpoint_id = $1 AND message_id = $2 AND status IN ('dead', 'held') FOR UPDATE`),
    [endpointId, messageId],
  );
  if (Number(removed.rows[0]?.messages ?? 0) === 1) return 'deleted';
  const exists = await pool.query(
    'SELECT 1 FROM webhook_messages WHERE endpoint_id = $1 AND message_id = $2',
    [endpointId, messageId],
  );
  return exists.rowCount === 1 ? 'not-dead-or-held' : 'not-found';
};
