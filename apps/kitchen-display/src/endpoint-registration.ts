import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { isWebhookSecret } from '@once/webhooks';

/** The order events the kitchen subscribes to. */
export const kitchenEventTypes = [
  'OrderPlaced',
  'OrderHeldForReview',
  'OrderApproved',
  'OrderServed',
  'OrderCompleted',
];

export interface RegistrationOptions {
  readonly pool: Pool;
  /** The api, e.g. `http://127.0.0.1:3000`. */
  readonly apiUrl: string;
  /** An admin API key of the tenant whose orders the kitchen shows (registering an endpoint configures the tenant). */
  readonly apiKey: string;
  /** Where the api reaches this kitchen display's `POST /webhooks`. */
  readonly webhookUrl: string;
}

/**
 * The kitchen's endpoint secret: registered once with the api (`POST /webhook-endpoints`), then kept in the kitchen's
 * own database. The Idempotency-Key is stored before the first try, so a kitchen that crashes mid-registration
 * registers the same endpoint on restart (the api replays the first answer, secret included).
 *
 * @example
 * const secret = await ensureRegistered({ pool, apiUrl, apiKey, webhookUrl: 'http://127.0.0.1:3200/webhooks' });
 */
export const ensureRegistered = async (options: RegistrationOptions): Promise<string> => {
  const { pool } = options;
  await pool.query(
    'INSERT INTO kitchen_endpoint (singleton, idempotency_key) VALUES (true, $1) ON CONFLICT DO NOTHING',
    [randomUUID()],
  );
  const stored = (
    await pool.query<{ idempotency_key: string; secret: string | null }>(
      'SELECT idempotency_key, secret FROM kitchen_endpoint',
    )
  ).rows[0];
  if (!stored) throw new Error('the kitchen endpoint row is missing');
  if (stored.secret) return stored.secret;
  const response = await fetch(`${options.apiUrl}/webhook-endpoints`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${options.apiKey}`,
      'idempotency-key': stored.idempotency_key,
    },
    body: JSON.stringify({ url: options.webhookUrl, eventTypes: kitchenEventTypes }),
  });
  const answer = (await response.json()) as { id?: string; secret?: string; detail?: string };
  if (response.status !== 201 || !answer.secret || !isWebhookSecret(answer.secret)) {
    throw new Error(
      `the api refused to register the kitchen (${String(response.status)}): ${answer.detail ?? ''}`,
    );
  }
  await pool.query('UPDATE kitchen_endpoint SET endpoint_id = $1, secret = $2', [answer.id, answer.secret]);
  return answer.secret;
};
