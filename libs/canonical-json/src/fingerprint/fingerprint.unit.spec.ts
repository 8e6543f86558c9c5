import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CanonicalJsonError } from '../errors/index.js';
import { parseJson } from '../parse/index.js';
import { fingerprint, fingerprintOfText, fingerprintText } from './fingerprint.js';

const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

const bodyOf = (text: string): unknown => {
  const parsed = parseJson(text);
  if (!parsed.ok) throw parsed.error;
  return parsed.value;
};

describe('fingerprint', () => {
  it('is the SHA-256 of the canonical {body, method, params, route} object, in lowercase hex', () => {
    const request = {
      method: 'post',
      route: '/invoices/:id/payments',
      params: { id: 'inv-1' },
      body: { method: 'cash', amount: 1250 },
    };
    const canonical =
      '{"body":{"amount":1250,"method":"cash"},"method":"POST","params":{"id":"inv-1"},"route":"/invoices/:id/payments"}';
    expect(fingerprint(request)).toBe(sha256Hex(canonical));
    expect(fingerprint(request)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('treats a missing body as null and missing params as {}', () => {
    expect(fingerprint({ method: 'POST', route: '/orders/:id/serve' })).toBe(
      sha256Hex('{"body":null,"method":"POST","params":{},"route":"/orders/:id/serve"}'),
    );
    expect(fingerprint({ method: 'POST', route: '/r', params: {}, body: null })).toBe(
      fingerprint({ method: 'POST', route: '/r' }),
    );
  });

  it('ignores key order, whitespace and the method case', () => {
    const a = fingerprint({
      method: 'post',
      route: '/orders',
      body: bodyOf('{"a":1,"b":[1,2],"c":{"x":"y","w":0.5}}'),
    });
    const b = fingerprint({
      method: 'POST',
      route: '/orders',
      body: bodyOf('{ "c" : { "w" : 5e-1, "x" : "y" },\n "b" : [ 1 , 2 ] , "a" : 1.0 }'),
    });
    expect(a).toBe(b);
  });

  it('changes with the method, route template, params or body', () => {
    const base = {
      method: 'POST',
      route: '/invoices/:id/payments',
      params: { id: 'a' },
      body: { amount: 1 },
    };
    const variants = [
      { ...base, method: 'PATCH' },
      { ...base, route: '/invoices/:id' },
      { ...base, params: { id: 'b' } },
      { ...base, body: { amount: 2 } },
      { ...base, body: { amount: '1' } },
      { ...base, body: { amount: 1, note: null } },
      { ...base, body: [{ amount: 1 }] },
    ];
    const hashes = new Set([base, ...variants].map((request) => fingerprint(request)));
    expect(hashes.size).toBe(variants.length + 1);
  });

  it('applies the depth limit to the body, not to the envelope around it', () => {
    const body = bodyOf(`${'['.repeat(64)}${']'.repeat(64)}`);
    expect(() => fingerprint({ method: 'POST', route: '/r', body })).not.toThrow();
    expect(() => fingerprint({ method: 'POST', route: '/r', body: [body] })).toThrow(
      expect.objectContaining({ code: 'too-deep' }),
    );
  });

  it('refuses a body that is not JSON', () => {
    expect(() => fingerprint({ method: 'POST', route: '/r', body: { at: new Date(0) } })).toThrow(
      CanonicalJsonError,
    );
    expect(() => fingerprint({ method: 'POST', route: '/r', body: { n: NaN } })).toThrow(
      expect.objectContaining({ code: 'non-finite-number', data: { pointer: '/body/n' } }),
    );
  });

  it('hashes the text fingerprintText writes, which parses back to the four fields', () => {
    const request = {
      method: 'post',
      route: '/invoices/:id/payments',
      params: { id: 'inv-1' },
      body: { b: 2, a: [1] },
    };
    const text = fingerprintText(request);
    expect(fingerprintOfText(text)).toBe(fingerprint(request));
    expect(JSON.parse(text)).toEqual({
      method: 'POST',
      route: request.route,
      params: request.params,
      body: request.body,
    });
    expect(JSON.parse(fingerprintText({ method: 'get', route: '/r' }))).toEqual({
      method: 'GET',
      route: '/r',
      params: {},
      body: null,
    });
  });
});
