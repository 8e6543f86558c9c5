import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../canonicalize/index.js';
import type { JsonValue } from './json-value.js';
import { sameJsonValue } from './same-json-value.js';

const jsonValue = fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<JsonValue>;

/** The canonical form of a value, or undefined where `canonicalize` refuses it. */
const canonicalOrNone = (value: unknown): string | undefined => {
  try {
    return canonicalize(value);
  } catch {
    return undefined;
  }
};

/** A value's keys in reverse order at every level: the same JSON value, written differently. */
const reordered = (value: JsonValue): JsonValue => {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item: JsonValue) => reordered(item));
  return Object.fromEntries(
    Object.keys(value)
      .reverse()
      .map((key) => [key, reordered((value as Record<string, JsonValue>)[key] as JsonValue)]),
  );
};

describe('sameJsonValue', () => {
  it('says what comparing canonical forms says, for any two JSON values', () => {
    fc.assert(
      fc.property(jsonValue, jsonValue, (known, value) => {
        const parsed = JSON.parse(canonicalize(known)) as JsonValue;
        expect(sameJsonValue(parsed, value)).toBe(canonicalize(value) === canonicalize(known));
      }),
    );
  });

  it('holds for a value and itself with its keys in another order', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        expect(sameJsonValue(JSON.parse(canonicalize(value)) as JsonValue, reordered(value))).toBe(true);
      }),
    );
  });

  it('takes -0 for 0, as the canonical form writes both', () => {
    expect(sameJsonValue({ a: [0] }, { a: [-0] })).toBe(true);
  });

  it('is false for everything canonicalize refuses, even where the JSON fields match', () => {
    class Body {
      readonly amount = 1;
    }
    const withSymbol = { amount: 1, [Symbol('tag')]: true };
    const holed = new Array<unknown>(3);
    holed[0] = 1;
    holed[2] = 3;
    const refused: readonly [JsonValue, unknown][] = [
      [{ amount: 1 }, new Body()],
      [{ amount: 1 }, withSymbol],
      [[1, null, 3], holed],
      [{ amount: null }, { amount: Number.NaN }],
      [{ amount: 1 }, { amount: 1, extra: undefined }],
      [{ at: '2026-01-01T00:00:00.000Z' }, { at: new Date('2026-01-01T00:00:00.000Z') }],
    ];
    for (const [known, value] of refused) {
      expect(sameJsonValue(known, value)).toBe(false);
      expect(canonicalOrNone(value) === canonicalize(known)).toBe(false);
    }
  });

  it('is false past maxDepth levels, where canonicalize would refuse the value', () => {
    const deep = (levels: number): JsonValue => (levels === 0 ? 0 : [deep(levels - 1)]);
    expect(sameJsonValue(deep(3), deep(3), 3)).toBe(true);
    expect(sameJsonValue(deep(4), deep(4), 3)).toBe(false);
    expect(canonicalOrNone(deep(65))).toBeUndefined();
    expect(sameJsonValue(deep(65), deep(65))).toBe(false);
  });
});
