import type { Pool, PoolClient } from 'pg';
import { migrate } from '@once/postgres';
import type { Migration } from '@once/postgres';

/** The inbox table: one row per (consumer, webhook-id) ever applied. */
export const webhookInboxMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'webhook inbox',
    sql: `
      CREATE TABLE webhook_inbox (
        consumer    text        NOT NULL,
        webhook_id  text        NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, webhook_id)
      );
    `,
  },
];

/**
 * Creates the inbox table (once; safe when several processes start together).
 * @example await migrateWebhookInbox(pool);
 */
export const migrateWebhookInbox = async (pool: Pool): Promise<void> => {
  await migrate(pool, 'webhook-inbox', webhookInboxMigrations);
};

/** What became of one delivery: its effect applied now, or an id applied before (nothing done). */
export type InboxReceipt<Result> =
  { readonly outcome: 'applied'; readonly result: Result } | { readonly outcome: 'duplicate' };

/** Who received it: one consumer's inbox is separate from another's, even in the same database. */
export interface InboxClaim {
  readonly consumer: string;
  readonly webhookId: string;
}

/**
 * Applies a webhook's effect exactly once: claims `(consumer, webhook-id)` and runs `apply` on the same connection,
 * in one transaction. A redelivery finds the claim and applies nothing; two concurrent deliveries of one id wait on
 * each other (the second sees the first's claim once it commits, or claims itself if the first rolled back). When
 * `apply` throws, nothing is claimed and the sender's retry applies it later.
 *
 * @example
 * const receipt = await receiveWebhookOnce(pool, { consumer: 'kitchen', webhookId }, (client) =>
 *   client.query('INSERT INTO tickets …'));
 */
export const receiveWebhookOnce = async <Result>(
  pool: Pool,
  claim: InboxClaim,
  apply: (client: PoolClient) => Promise<Result>,
): Promise<InboxReceipt<Result>> => {
  const client = await pool.connect();
  let failure: unknown;
  try {
    await client.query('BEGIN');
    const claimed = await client.query(
      'INSERT INTO webhook_inbox (consumer, webhook_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [claim.consumer, claim.webhookId],
    );
    if (claimed.rowCount !== 1) {
      await client.query('ROLLBACK');
      return { outcome: 'duplicate' };
    }
    const result = await apply(client);
    await client.query('COMMIT');
    return { outcome: 'applied', result };
  } catch (error) {
    failure = error;
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    // A connection whose transaction failed is destroyed rather than reused.
    client.release(failure instanceof Error ? failure : undefined);
  }
};
