import { describe, expect, it } from 'vitest';
import { formatIdempotencyKeyHeader, isValidIdempotencyKey, toStoredRequest } from './index.js';
import type { IntentRequest } from './index.js';

describe('toStoredRequest', () => {
  it('serialises the body once and lower-cases header names', () => {
    expect(
      toStoredRequest({
        method: 'POST',
        path: '/orders',
        body: { table: 4, note: 'no ice' },
        headers: { 'X-Till': '3' },
      }),
    ).toEqual({
      method: 'POST',
      path: '/orders',
      headers: { 'x-till': '3', 'content-type': 'application/json' },
      bodyText: '{"table":4,"note":"no ice"}',
    });
    expect(toStoredRequest({ method: 'POST', path: '/orders/o-1/complete' })).toEqual({
      method: 'POST',
      path: '/orders/o-1/complete',
      headers: {},
    });
  });

  it('refuses to store credentials or a key of its own, a safe method, or a body JSON cannot hold', () => {
    for (const name of ['Authorization', 'cookie', 'Proxy-Authorization', 'Idempotency-Key']) {
      expect(() => toStoredRequest({ method: 'POST', path: '/x', headers: { [name]: 'secret' } })).toThrow(
        TypeError,
      );
    }
    expect(() => toStoredRequest({ method: 'GET', path: '/x' } as unknown as IntentRequest)).toThrow(
      TypeError,
    );
    expect(() => toStoredRequest({ method: 'POST', path: '/x', body: () => 1 })).toThrow(TypeError);
  });
});

describe('the Idempotency-Key header', () => {
  it('is an RFC 9651 sf-string: quoted, with quote and backslash escaped', () => {
    expect(formatIdempotencyKeyHeader('0192f0c4-7d1e-7a3b-9c4d-5e6f708192a3')).toBe(
      '"0192f0c4-7d1e-7a3b-9c4d-5e6f708192a3"',
    );
    expect(formatIdempotencyKeyHeader('a"b\\c-key-1')).toBe('"a\\"b\\\\c-key-1"');
  });

  it('accepts 8 to 255 visible ASCII characters only', () => {
    expect(isValidIdempotencyKey('12345678')).toBe(true);
    expect(isValidIdempotencyKey('x'.repeat(255))).toBe(true);
    for (const key of ['1234567', 'x'.repeat(256), 'with space', 'caf\u00e9-key-1', 'tab\tkey-1']) {
      expect(isValidIdempotencyKey(key)).toBe(false);
    }
  });
});
