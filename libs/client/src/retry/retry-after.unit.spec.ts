import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './index.js';

const now = Date.parse('1994-11-06T08:49:30Z');

describe('parseRetryAfter', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(' 3 ', now)).toBe(3_000);
    expect(parseRetryAfter('120', now)).toBe(120_000);
  });

  it('reads all three HTTP-date forms as GMT, relative to the given clock', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', now)).toBe(7_000);
    expect(parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', now)).toBe(7_000);
    expect(parseRetryAfter('Sun Nov  6 08:49:37 1994', now)).toBe(7_000);
  });

  it('treats a date in the past as no wait', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:00:00 GMT', now)).toBe(0);
  });

  it('ignores what is neither', () => {
    for (const value of [null, undefined, '', '-1', '1.5', 'soon', '2026-01-01', 'Sun, 99 Foo 1994 GMT']) {
      expect(parseRetryAfter(value, now)).toBeUndefined();
    }
  });
});
