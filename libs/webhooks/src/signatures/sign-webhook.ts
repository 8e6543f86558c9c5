import { createHmac } from 'node:crypto';
import { decodeWebhookSecret } from '../secrets/index.js';

/** What a signature covers: the message id, its timestamp (seconds since the epoch) and the exact body bytes. */
export interface WebhookContent {
  readonly id: string;
  readonly timestamp: number;
  /** The body as sent: text (signed as its UTF-8 bytes) or the raw bytes themselves. */
  readonly body: string | Uint8Array;
}

/** The three Standard Webhooks headers of one delivery. */
export interface WebhookHeaders {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
}

/**
 * One `v1,<base64>` signature: HMAC-SHA256, keyed with the secret's decoded bytes, over `<id>.<timestamp>.<body>`.
 *
 * @example
 * signWebhook(generateWebhookSecret(), { id: 'msg_1', timestamp: 1700000000, body: '{}' }); // 'v1,K5oZ…'
 */
export const signWebhook = (secret: string, content: WebhookContent): string =>
  `v1,${createHmac('sha256', decodeWebhookSecret(secret))
    .update(`${content.id}.${String(content.timestamp)}.`)
    .update(content.body)
    .digest('base64')}`;

/**
 * The headers of a delivery signed with every secret given (space-separated signatures), so a receiver that knows
 * either the old or the new secret accepts it while a rotation's grace period lasts.
 *
 * @example
 * fetch(url, { method: 'POST', body, headers: webhookHeaders([current, previous], { id, timestamp, body }) });
 */
export const webhookHeaders = (secrets: readonly string[], content: WebhookContent): WebhookHeaders => {
  if (secrets.length === 0) throw new Error('a webhook is signed with at least one secret');
  return {
    'webhook-id': content.id,
    'webhook-timestamp': String(content.timestamp),
    'webhook-signature': secrets.map((secret) => signWebhook(secret, content)).join(' '),
  };
};
