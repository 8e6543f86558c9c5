import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { decodeWebhookSecret, generateWebhookSecret, isWebhookSecret } from '../secrets/index.js';
import { signWebhook, verifyWebhook, webhookHeaders } from './index.js';

// The example secret of the Standard Webhooks specification's test vectors.
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const now = 1_800_000_000;
const body = '{"type":"OrderPlaced","data":{"orderId":"o-1"}}';
const content = { id: 'msg_1', timestamp: now, body };

describe('webhook secrets', () => {
  it('generates whsec_ secrets of 24 to 64 random bytes and refuses other sizes', () => {
    const secrets = [24, 32, 64].map((bytes) => generateWebhookSecret(bytes));
    expect(secrets.map((text) => decodeWebhookSecret(text).length)).toEqual([24, 32, 64]);
    expect(new Set([generateWebhookSecret(), generateWebhookSecret()]).size).toBe(2);
    expect(() => generateWebhookSecret(16)).toThrow(RangeError);
    expect(() => generateWebhookSecret(65)).toThrow(RangeError);
  });

  it('refuses a missing prefix, broken base64 and a key too short or too long', () => {
    expect(isWebhookSecret(secret)).toBe(true);
    expect(isWebhookSecret(secret.slice('whsec_'.length))).toBe(false);
    expect(isWebhookSecret('whsec_not base64!')).toBe(false);
    expect(isWebhookSecret(`whsec_${Buffer.alloc(16).toString('base64')}`)).toBe(false);
    expect(isWebhookSecret(`whsec_${Buffer.alloc(65).toString('base64')}`)).toBe(false);
  });
});

describe('signWebhook', () => {
  it('keys the HMAC with the decoded secret bytes, not the text', () => {
    const expected = createHmac('sha256', Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64'))
      .update(`msg_1.${String(now)}.${body}`)
      .digest('base64');
    expect(signWebhook(secret, content)).toBe(`v1,${expected}`);
  });

  it('signs with every secret of a rotation, space-separated', () => {
    const next = generateWebhookSecret();
    const headers = webhookHeaders([next, secret], content);
    expect(headers['webhook-signature'].split(' ')).toEqual([
      signWebhook(next, content),
      signWebhook(secret, content),
    ]);
    expect(headers).toMatchObject({ 'webhook-id': 'msg_1', 'webhook-timestamp': String(now) });
  });
});

describe('verifyWebhook', () => {
  const headers = webhookHeaders([secret], content);

  it('accepts a signature by any of the secrets, among other signatures and versions', () => {
    const withOthers = { ...headers, 'webhook-signature': `v1a,abc v1,bm90 ${headers['webhook-signature']}` };
    expect(verifyWebhook({ secrets: secret, headers: withOthers, body, nowSeconds: now })).toEqual({
      ok: true,
      id: 'msg_1',
      timestamp: now,
    });
    expect(
      verifyWebhook({ secrets: [generateWebhookSecret(), secret], headers, body, nowSeconds: now + 299 }).ok,
    ).toBe(true);
  });

  it('verifies the raw bytes of a body as its text, and refuses bytes that differ', () => {
    const bytes = Buffer.from(body, 'utf8');
    expect(signWebhook(secret, { ...content, body: bytes })).toBe(signWebhook(secret, content));
    expect(verifyWebhook({ secrets: secret, headers, body: bytes, nowSeconds: now }).ok).toBe(true);
    const invalidUtf8 = Buffer.concat([bytes, Buffer.from([0xff])]);
    const signed = webhookHeaders([secret], { ...content, body: invalidUtf8 });
    expect(verifyWebhook({ secrets: secret, headers: signed, body: invalidUtf8, nowSeconds: now }).ok).toBe(
      true,
    );
    expect(
      verifyWebhook({
        secrets: secret,
        headers: signed,
        body: invalidUtf8.toString('utf8'),
        nowSeconds: now,
      }),
    ).toEqual({ ok: false, reason: 'invalid-signature' });
  });

  it('refuses another secret, another body, another id, missing headers and timestamps out of tolerance', () => {
    const verify = (overrides: Partial<Parameters<typeof verifyWebhook>[0]>) =>
      verifyWebhook({ secrets: secret, headers, body, nowSeconds: now, ...overrides });
    expect(verify({ secrets: generateWebhookSecret() })).toEqual({ ok: false, reason: 'invalid-signature' });
    expect(verify({ body: `${body} ` })).toEqual({ ok: false, reason: 'invalid-signature' });
    expect(verify({ headers: { ...headers, 'webhook-id': 'msg_2' } })).toEqual({
      ok: false,
      reason: 'invalid-signature',
    });
    expect(verify({ headers: { ...headers, 'webhook-signature': undefined } })).toEqual({
      ok: false,
      reason: 'missing-headers',
    });
    expect(verify({ headers: { ...headers, 'webhook-timestamp': '17e8' } })).toEqual({
      ok: false,
      reason: 'invalid-timestamp',
    });
    expect(verify({ nowSeconds: now + 301 })).toEqual({ ok: false, reason: 'timestamp-too-old' });
    expect(verify({ nowSeconds: now - 301 })).toEqual({ ok: false, reason: 'timestamp-too-new' });
    expect(verify({ nowSeconds: now + 3600, toleranceSeconds: 3600 }).ok).toBe(true);
  });
});

describe('interoperability with the standardwebhooks package', () => {
  it('verifies what the package signs', () => {
    const reference = new Webhook(secret);
    const signature = reference.sign('msg_1', new Date(now * 1000), body);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(now),
      'webhook-signature': signature,
    };
    expect(signature).toBe(signWebhook(secret, content));
    expect(verifyWebhook({ secrets: secret, headers, body, nowSeconds: now }).ok).toBe(true);
  });

  it('is verified by the package, with a rotation header of two signatures', () => {
    const fresh = { ...content, timestamp: Math.floor(Date.now() / 1000) };
    const next = generateWebhookSecret(64);
    const headers = webhookHeaders([next, secret], fresh);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(new Webhook(next).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, { ...headers })).toThrow();
  });
});
