import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook } from './webhook-signature.js';

const secret = 'a-shared-secret-0123456789';
const EXPECTED_SIGNATURE = 'v1,0JNpWCKGmfxqO+DjXOvSM/IoWcPsbdhe4+m1fhdcOTA=';
const sign = (id: string, timestamp: number, body: string, key = secret) =>
  signWebhook({ secret: key, id, timestamp, body });

describe('verifyWebhook', () => {
  const now = 1_800_000_000;
  const body = '{"id":"evt_1"}';

  it('signs as Standard Webhooks does: v1, then base64 HMAC-SHA256 of id.timestamp.body', () => {
    // Computed independently: printf 'evt_1.1800000000.{"id":"evt_1"}' | openssl dgst -sha256 -hmac a-shared-secret-0123456789 -binary | base64
    expect(sign('evt_1', now, body)).toBe(EXPECTED_SIGNATURE);
  });

  it('accepts the right signature among several', () => {
    const signatureHeader = `v1,bm90LWl0 ${sign('evt_1', now, body)}`;
    expect(
      verifyWebhook({
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
    expect(verifyWebhook({ ...base, signatureHeader: sign('evt_1', now, body, 'other-secret') })).toBe(false);
    expect(verifyWebhook({ ...base, body: '{"id":"evt_2"}' })).toBe(false);
    expect(verifyWebhook({ ...base, id: 'evt_2' })).toBe(false);
    expect(verifyWebhook({ ...base, nowSeconds: now + 301 })).toBe(false);
    expect(verifyWebhook({ ...base, timestamp: Number.NaN })).toBe(false);
  });
});
