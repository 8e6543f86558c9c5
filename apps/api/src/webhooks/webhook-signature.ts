import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Checks Standard Webhooks headers: `webhook-signature` (space-separated `v1,<base64>` entries) must hold the
 * HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>` under the shared secret, and the timestamp must be
 * within `toleranceSeconds` of now, so an old delivery cannot be replayed later.
 *
 * @example
 * verifyWebhookSignature({ secret, id, timestamp, body, signatureHeader, nowSeconds: Date.now() / 1000 });
 */
export const verifyWebhookSignature = (input: {
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
  const digest = createHmac('sha256', input.secret)
    .update(`${input.id}.${String(input.timestamp)}.${input.body}`)
    .digest('base64');
  const expected = Buffer.from(`v1,${digest}`);
  return input.signatureHeader
    .split(' ')
    .map((candidate) => Buffer.from(candidate))
    .some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected));
};
