import { timingSafeEqual } from 'node:crypto';
import { signWebhook } from './sign-webhook.js';

/** Why a delivery was refused. */
export type WebhookRefusal =
  'missing-headers' | 'invalid-timestamp' | 'timestamp-too-old' | 'timestamp-too-new' | 'invalid-signature';

export type WebhookVerification =
  | { readonly ok: true; readonly id: string; readonly timestamp: number }
  | { readonly ok: false; readonly reason: WebhookRefusal };

export interface VerifyWebhookInput {
  /** The endpoint's secret, or several while a rotation's grace period lasts (any one may match). */
  readonly secrets: string | readonly string[];
  /** Request headers, names in lower case (as Node and Fastify give them). */
  readonly headers: object;
  /** The raw body, exactly as received: its bytes, before any parsing (or the same bytes as text). */
  readonly body: string | Uint8Array;
  /** Now, in seconds since the epoch; the clock by default. */
  readonly nowSeconds?: number;
  /** How far the timestamp may be from now either way; 300 s (the Standard Webhooks default) by default. */
  readonly toleranceSeconds?: number;
}

/** One header's value when it was sent once (Node gives repeated headers as arrays). */
const single = (headers: object, name: string): string | undefined => {
  const value: unknown = (headers as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
};

/** Default timestamp tolerance, both ways (seconds). */
export const defaultToleranceSeconds = 300;

/**
 * Verifies a Standard Webhooks delivery: the three headers are there, the timestamp is within the tolerance (an old
 * delivery replayed by an eavesdropper is refused), and one of the `v1` signatures in `webhook-signature` matches one
 * of the secrets (constant-time comparison). Other versions (`v1a,…`) are skipped, as the spec asks.
 *
 * @example
 * const verified = verifyWebhook({ secrets: [secret], headers: request.headers, body: rawBody });
 * if (!verified.ok) return reply.code(401).send({ reason: verified.reason });
 */
export const verifyWebhook = (input: VerifyWebhookInput): WebhookVerification => {
  const id = single(input.headers, 'webhook-id');
  const timestampText = single(input.headers, 'webhook-timestamp');
  const signatures = single(input.headers, 'webhook-signature');
  if (!id || !timestampText || !signatures) return { ok: false, reason: 'missing-headers' };
  if (!/^\d{1,15}$/.test(timestampText)) return { ok: false, reason: 'invalid-timestamp' };
  const timestamp = Number(timestampText);
  const now = input.nowSeconds ?? Date.now() / 1000;
  const tolerance = input.toleranceSeconds ?? defaultToleranceSeconds;
  if (now - timestamp > tolerance) return { ok: false, reason: 'timestamp-too-old' };
  if (timestamp - now > tolerance) return { ok: false, reason: 'timestamp-too-new' };
  const secrets = typeof input.secrets === 'string' ? [input.secrets] : input.secrets;
  const offered = signatures
    .split(' ')
    .filter((candidate) => candidate.startsWith('v1,'))
    .map((candidate) => Buffer.from(candidate));
  const matches = secrets.some((secret) => {
    const expected = Buffer.from(signWebhook(secret, { id, timestamp, body: input.body }));
    return offered.some(
      (candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected),
    );
  });
  return matches ? { ok: true, id, timestamp } : { ok: false, reason: 'invalid-signature' };
};
