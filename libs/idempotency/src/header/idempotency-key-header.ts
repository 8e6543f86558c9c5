/** Why an `Idempotency-Key` header was refused. */
export type IdempotencyKeyRejection =
  | 'missing'
  | 'empty'
  | 'multiple-header-lines'
  | 'list'
  | 'inner-list'
  | 'parameters'
  | 'unterminated-string'
  | 'invalid-escape'
  | 'invalid-character'
  | 'too-short'
  | 'too-long';

/** The result of parsing an `Idempotency-Key` header: the key, or the problem to answer with (400). */
export type IdempotencyKeyHeaderResult =
  | { readonly ok: true; readonly key: string }
  | {
      readonly ok: false;
      readonly problem: 'idempotency-key-missing' | 'idempotency-key-invalid';
      readonly reason: IdempotencyKeyRejection;
    };

/** Shortest accepted key (after unquoting). */
export const IDEMPOTENCY_KEY_MIN_LENGTH = 8;
/** Longest accepted key (after unquoting), as Stripe documents. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

const invalid = (reason: IdempotencyKeyRejection): IdempotencyKeyHeaderResult => ({
  ok: false,
  problem: 'idempotency-key-invalid',
  reason,
});

const isOptionalWhitespace = (char: string | undefined): boolean => char === ' ' || char === '\t';
const isVisibleAscii = (code: number): boolean => code >= 0x21 && code <= 0x7e;

/**
 * Parses the `Idempotency-Key` request header: an RFC 9651 sf-string (`"…"`, with `\"` and `\\` escapes, as the
 * IETF draft specifies) or a bare Stripe-style value. The key must be 8–255 visible ASCII characters after
 * unquoting. Lists, inner lists, parameters and repeated header lines are refused. Never throws.
 *
 * @param rawHeaderValues the header as Node gives it: undefined when absent, an array when sent on several lines.
 * @example
 * parseIdempotencyKeyHeader('"8e03978e-40d5-43e8-bc93-6894a57f9324"');
 * // { ok: true, key: '8e03978e-40d5-43e8-bc93-6894a57f9324' }
 * parseIdempotencyKeyHeader(undefined);
 * // { ok: false, problem: 'idempotency-key-missing', reason: 'missing' }
 */
export const parseIdempotencyKeyHeader = (
  rawHeaderValues: string | readonly string[] | undefined,
): IdempotencyKeyHeaderResult => {
  if (rawHeaderValues === undefined)
    return { ok: false, problem: 'idempotency-key-missing', reason: 'missing' };
  let raw: string;
  if (typeof rawHeaderValues === 'string') {
    raw = rawHeaderValues;
  } else {
    if (rawHeaderValues.length === 0)
      return { ok: false, problem: 'idempotency-key-missing', reason: 'missing' };
    if (rawHeaderValues.length > 1) return invalid('multiple-header-lines');
    raw = rawHeaderValues[0] as string;
  }

  let start = 0;
  let end = raw.length;
  while (start < end && isOptionalWhitespace(raw[start])) start++;
  while (end > start && isOptionalWhitespace(raw[end - 1])) end--;
  if (start === end) return invalid('empty');

  const first = raw[start];
  if (first === '(') return invalid('inner-list');
  const parsed = first === '"' ? parseQuoted(raw, start, end) : parseBare(raw, start, end);
  if (!parsed.ok) return parsed;
  const key = parsed.key;
  if (key.length < IDEMPOTENCY_KEY_MIN_LENGTH) return invalid('too-short');
  if (key.length > IDEMPOTENCY_KEY_MAX_LENGTH) return invalid('too-long');
  return { ok: true, key };
};

const afterItem = (raw: string, index: number, end: number): IdempotencyKeyHeaderResult | undefined => {
  let position = index;
  while (position < end && isOptionalWhitespace(raw[position])) position++;
  if (position === end) return undefined;
  const next = raw[position];
  if (next === ',') return invalid('list');
  if (next === ';') return invalid('parameters');
  return invalid('invalid-character');
};

const parseQuoted = (raw: string, start: number, end: number): IdempotencyKeyHeaderResult => {
  let key = '';
  for (let index = start + 1; index < end; index++) {
    const char = raw[index] as string;
    const code = char.charCodeAt(0);
    if (char === '\\') {
      const escaped = raw[index + 1];
      if (index + 1 >= end || (escaped !== '"' && escaped !== '\\')) return invalid('invalid-escape');
      key += escaped;
      index++;
      continue;
    }
    if (char === '"') {
      const rest = afterItem(raw, index + 1, end);
      if (rest) return rest;
      return { ok: true, key };
    }
    // sf-string allows SP inside quotes, but a key must be visible ASCII: refuse both here.
    if (!isVisibleAscii(code)) return invalid('invalid-character');
    key += char;
  }
  return invalid('unterminated-string');
};

const parseBare = (raw: string, start: number, end: number): IdempotencyKeyHeaderResult => {
  for (let index = start; index < end; index++) {
    const char = raw[index] as string;
    if (char === ',') return invalid('list');
    if (char === ';') return invalid('parameters');
    if (isOptionalWhitespace(char)) {
      const rest = afterItem(raw, index, end);
      return rest ?? invalid('invalid-character');
    }
    // Quotes and backslashes only make sense inside an sf-string; a bare value holding them is malformed.
    if (char === '"' || char === '\\' || !isVisibleAscii(char.charCodeAt(0)))
      return invalid('invalid-character');
  }
  return { ok: true, key: raw.slice(start, end) };
};
