import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from './webhook-signature.js';

const secret = 'a-shared-secret-0123456789';
const sign = (id: string, timestamp: number, body: string, key = secret) =>
  `v1,${createHmac('sha256', key)
    .update(`${id}.${String(timestamp)}.${body}`)
    .digest('base64')}`;

describe('verifyWebhookSignature', () => {
  const now = 1_800_000_000;
  const body = '{"id":"evt_1"}';

  it('accepts the right signature among several', () => {
    const signatureHeader = `v1,bm90LWl0 ${sign('evt_1', now, body)}`;
    expect(
      verifyWebhookSignature({
        secret,
        id: 'evt_1',
        timestamp: now,
        body,
        signatureHeader,
        nowSeconds: now + 10,
      }),
    ).toBe(true);
  });

  it('refuses another secret, another body, another id and an old timestamp', () => {
    const signatureHeader = sign('evt_1', now, body);
    const base = { secret, id: 'evt_1', timestamp: now, body, signatureHeader, nowSeconds: now };
    expect(
      verifyWebhookSignature({ ...base, signatureHeader: sign('evt_1', now, body, 'other-secret') }),
    ).toBe(false);
    expect(verifyWebhookSignature({ ...base, body: '{"id":"evt_2"}' })).toBe(false);
    expect(verifyWebhookSignature({ ...base, id: 'evt_2' })).toBe(false);
    expect(verifyWebhookSignature({ ...base, nowSeconds: now + 301 })).toBe(false);
    expect(verifyWebhookSignature({ ...base, timestamp: Number.NaN })).toBe(false);
  });
});
