import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIdempotencyKeyHeader } from './idempotency-key-header.js';

const uuid = '8e03978e-40d5-43e8-bc93-6894a57f9324';

describe('parseIdempotencyKeyHeader', () => {
  it.each([
    ['a quoted sf-string (IETF draft)', `"${uuid}"`, uuid],
    ['a bare Stripe-style value', 'KG5LxwFBepaKHyUD', 'KG5LxwFBepaKHyUD'],
    ['surrounding whitespace', `  "${uuid}"\t`, uuid],
    ['escaped quote and backslash', '"abc\\"def\\\\ghi"', 'abc"def\\ghi'],
    ['a single header line in an array', [uuid], uuid],
    ['exactly 8 characters', '12345678', '12345678'],
    ['exactly 255 characters', 'k'.repeat(255), 'k'.repeat(255)],
  ])('accepts %s', (_name, header, key) => {
    expect(parseIdempotencyKeyHeader(header)).toEqual({ ok: true, key });
  });

  it('reports a missing header as idempotency-key-missing', () => {
    expect(parseIdempotencyKeyHeader(undefined)).toEqual({
      ok: false,
      problem: 'idempotency-key-missing',
      reason: 'missing',
    });
    expect(parseIdempotencyKeyHeader([])).toMatchObject({ problem: 'idempotency-key-missing' });
  });

  it.each([
    ['empty', ''],
    ['empty', '   '],
    ['too-short', '"1234567"'],
    ['too-short', '""'],
    ['too-short', 'abc'],
    ['too-long', 'k'.repeat(256)],
    ['too-long', `"${'k'.repeat(256)}"`],
    ['invalid-character', '"abc def ghi"'],
    ['invalid-character', 'abc def ghi'],
    ['invalid-character', 'abcdéfghij'],
    ['invalid-character', '"abcdéfghij"'],
    ['invalid-character', 'abcd\u0001efghij'],
    ['invalid-character', '"abcd\u007fefghij"'],
    ['invalid-character', 'abc"defghij'],
    ['invalid-character', '"abcdefghij"x'],
    ['invalid-escape', '"abcdefgh\\n"'],
    ['unterminated-string', '"abcdefghij'],
    ['unterminated-string', '"abcdefghij\\"'],
    ['inner-list', '("abcdefghij" "klmnopqrst")'],
    ['parameters', '"abcdefghij";a=1'],
    ['parameters', 'abcdefghij;a=1'],
    ['list', '"abcdefghij", "klmnopqrst"'],
    ['list', 'abcdefghij,klmnopqrst'],
    ['multiple-header-lines', [uuid, uuid]],
  ])('refuses %s: %j', (reason, header) => {
    expect(parseIdempotencyKeyHeader(header)).toEqual({
      ok: false,
      problem: 'idempotency-key-invalid',
      reason,
    });
  });

  it('round-trips every visible-ASCII key serialised as an sf-string', () => {
    const visible = fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code));
    fc.assert(
      fc.property(fc.string({ unit: visible, minLength: 8, maxLength: 255 }), (key) => {
        const header = `"${key.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
        expect(parseIdempotencyKeyHeader(header)).toEqual({ ok: true, key });
      }),
    );
  });

  it('never throws and only accepts keys of 8-255 visible ASCII characters', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 300 })),
        (header) => {
          const result = parseIdempotencyKeyHeader(header);
          if (result.ok) {
            expect(result.key.length).toBeGreaterThanOrEqual(8);
            expect(result.key.length).toBeLessThanOrEqual(255);
            expect(/^[\x21-\x7e]+$/.test(result.key)).toBe(true);
          }
        },
      ),
    );
  });
});
