import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signs a webhook the Standard Webhooks way: HMAC-SHA256 over `<id>.<timestamp>.<body>`, as `v1,<base64>`.
 * The secret's UTF-8 bytes are the HMAC key.
 *
 * @example
 * const signature = signWebhook({ secret: 's3cret', id: 'evt_1', timestamp: 1700000000, body: '{}' });
 */
export const signWebhook = (input: { secret: string; id: string; timestamp: number; body: string }): string =>
  `v1,${createHmac('sha256', input.secret).update(`${input.id}.${input.timestamp}.${input.body}`).digest('base64')}`;

/**
 * Checks a `webhook-signature` header (a space-separated list of `v1,<base64>`) against the body, and that the
 * timestamp is within `toleranceSeconds` of `nowSeconds` (replayed old deliveries are refused).
 *
 * @example
 * verifyWebhook({ secret, id, timestamp, body, signatureHeader, nowSeconds: Date.now() / 1000 });
 */
export const verifyWebhook = (input: {
  secret: string;
  id: string;
  timestamp: number;
  body: string;
  signatureHeader: string;
  nowSeconds: number;
  toleranceSeconds?: number;
}): boolean => {
  if (
    !Number.isFinite(input.timestamp) ||
    Math.abs(input.nowSeconds - input.timestamp) > (input.toleranceSeconds ?? 300)
  ) {
    return false;
  }
  const expected = Buffer.from(signWebhook(input));
  return input.signatureHeader
    .split(' ')
    .map((candidate) => Buffer.from(candidate))
    .some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected));
};
