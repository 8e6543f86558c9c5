import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { eventRowTypes, parseTimestamptz } from './event-row-types.js';

const byPg = pg.types.getTypeParser(1184, 'text') as (text: string) => Date | number | null;

const two = (value: number): string => String(value).padStart(2, '0');

/** A `timestamptz` as PostgreSQL writes it in text (ISO date style), in any zone, with 0 to 6 fraction digits. */
const timestamptzText = fc
  .record({
    year: fc.integer({ min: 1000, max: 9999 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    fraction: fc.stringMatching(/^\d{0,6}$/),
    sign: fc.constantFrom('+', '-'),
    offsetHours: fc.integer({ min: 0, max: 15 }),
    offsetMinutes: fc.constantFrom(undefined, 0, 30, 45),
    offsetSeconds: fc.constantFrom(undefined, 28),
  })
  .map((t) => {
    const fraction = t.fraction === '' ? '' : `.${t.fraction}`;
    const zone =
      two(t.offsetHours) +
      (t.offsetMinutes === undefined ? '' : `:${two(t.offsetMinutes)}`) +
      (t.offsetMinutes === undefined || t.offsetSeconds === undefined ? '' : `:${two(t.offsetSeconds)}`);
    return `${t.year}-${two(t.month)}-${two(t.day)} ${two(t.hour)}:${two(t.minute)}:${two(t.second)}${fraction}${t.sign}${zone}`;
  });

describe('parseTimestamptz', () => {
  it('reads every ISO timestamptz to the same instant as pg', () => {
    fc.assert(
      fc.property(timestamptzText, (text) => {
        expect(parseTimestamptz(text).getTime()).toBe((byPg(text) as Date).getTime());
      }),
      { numRuns: 2_000 },
    );
  });

  it.each([
    ['an event recorded now', '2026-12-01 20:03:55.123456+00', '2026-12-01T20:03:55.123Z'],
    ['a whole second', '2026-12-01 20:03:55+00', '2026-12-01T20:03:55.000Z'],
    ['a zone east of UTC', '2026-12-01 21:33:55.5+01:30', '2026-12-01T20:03:55.500Z'],
    ['a zone west of UTC', '2026-12-01 15:03:55.05-05', '2026-12-01T20:03:55.050Z'],
    ['a zone with seconds', '1890-01-01 00:53:28+00:53:28', '1890-01-01T00:00:00.000Z'],
  ])('reads %s', (_, text, iso) => {
    expect(parseTimestamptz(text).toISOString()).toBe(iso);
  });

  it.each([
    ['a year before 1000', '0099-01-01 00:00:00+00'],
    ['a year after 9999', '10000-01-01 00:00:00+00'],
    ['a date before Christ', '0044-03-15 12:00:00+00 BC'],
    ['infinity', 'infinity'],
    ['minus infinity', '-infinity'],
  ])('leaves %s to pg', (_, text) => {
    expect(parseTimestamptz(text)).toEqual(byPg(text));
  });

  it('is the parser the store reads timestamptz with, and only timestamptz', () => {
    expect(eventRowTypes.getTypeParser(1184, 'text')).toBe(parseTimestamptz);
    expect(eventRowTypes.getTypeParser(20, 'text')).toBe(pg.types.getTypeParser(20, 'text'));
    expect(eventRowTypes.getTypeParser(3802, 'text')).toBe(pg.types.getTypeParser(3802, 'text'));
  });
});
