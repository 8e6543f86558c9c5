import pg from 'pg';
import type { CustomTypesConfig } from 'pg';

const timestamptzOid = 1184;

const digitsAt = (text: string, from: number, to: number): number => {
  let value = 0;
  for (let index = from; index < to; index++) {
    const digit = text.charCodeAt(index) - 48;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  return value;
};

const parseTimestamptzByDefault = pg.types.getTypeParser(timestamptzOid, 'text') as (text: string) => Date;

/**
 * A `timestamptz` as PostgreSQL writes it in text with the ISO date style (`2026-12-01 20:03:55.123456+00`, the
 * fraction optional, the offset `±hh[:mm[:ss]]`), read to the millisecond by counting digits. Every event row carries
 * one, and pg's own parser (a chain of regular expressions) costs three times as much (docs/PERFORMANCE.md).
 * Anything else (years before 1000 or after 9999, BC, infinity) goes to pg's parser.
 */
export const parseTimestamptz = (text: string): Date => {
  const year = digitsAt(text, 0, 4);
  if (
    !(year >= 1000) ||
    text.charCodeAt(4) !== 45 ||
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 32 ||
    text.charCodeAt(13) !== 58 ||
    text.charCodeAt(16) !== 58
  ) {
    return parseTimestamptzByDefault(text);
  }
  let index = 19;
  let milliseconds = 0;
  if (text.charCodeAt(index) === 46) {
    const start = ++index;
    while (index < text.length && text.charCodeAt(index) >= 48 && text.charCodeAt(index) <= 57) index++;
    const digits = Math.min(index - start, 3);
    milliseconds = digitsAt(text, start, start + digits) * 10 ** (3 - digits);
  }
  const sign = text.charCodeAt(index);
  const zone = text.length - index - 1;
  if ((sign !== 43 && sign !== 45) || (zone !== 2 && zone !== 5 && zone !== 8))
    return parseTimestamptzByDefault(text);
  const offsetSeconds =
    digitsAt(text, index + 1, index + 3) * 3600 +
    (zone >= 5 ? digitsAt(text, index + 4, index + 6) * 60 : 0) +
    (zone === 8 ? digitsAt(text, index + 7, index + 9) : 0);
  const time =
    Date.UTC(
      year,
      digitsAt(text, 5, 7) - 1,
      digitsAt(text, 8, 10),
      digitsAt(text, 11, 13),
      digitsAt(text, 14, 16),
      digitsAt(text, 17, 19),
      milliseconds,
    ) -
    (sign === 43 ? 1 : -1) * offsetSeconds * 1000;
  return Number.isNaN(time) ? parseTimestamptzByDefault(text) : new Date(time);
};

/** The type parsers of the store's reads: pg's own, but `timestamptz` through `parseTimestamptz`. */
export const eventRowTypes: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === timestamptzOid && format !== 'binary'
      ? parseTimestamptz
      : pg.types.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
};
