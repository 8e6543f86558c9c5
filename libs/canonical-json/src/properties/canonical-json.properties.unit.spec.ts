import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../canonicalize/index.js';
import { fingerprint } from '../fingerprint/index.js';
import type { JsonValue } from '../json/index.js';
import { parseJson } from '../parse/index.js';

const jsonValue = fc.jsonValue({ stringUnit: 'grapheme', maxDepth: 5 }) as fc.Arbitrary<JsonValue>;
const scalar = fc.jsonValue({ stringUnit: 'grapheme', maxDepth: 0 }) as fc.Arbitrary<JsonValue>;

/** A small deterministic PRNG (mulberry32), so a failing seed reproduces the same scrambled text. */
const randomFrom = (seed: number) => {
  let state = seed >>> 0;
  return (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

const escapeEveryCodeUnit = (text: string): string =>
  `"${[...Array(text.length).keys()].map((index) => `\\u${text.charCodeAt(index).toString(16).padStart(4, '0')}`).join('')}"`;

/** Writes the same JSON value as a different text: shuffled keys, random whitespace, other number/string spellings. */
const writeScrambled = (value: JsonValue, random: () => number): string => {
  const space = (): string => [' ', '\n', '\t', '\r\n', '', ''][Math.floor(random() * 6)] as string;
  const write = (node: JsonValue): string => {
    if (typeof node === 'number') return random() < 0.5 ? JSON.stringify(node) : node.toExponential();
    if (typeof node === 'string') return random() < 0.5 ? JSON.stringify(node) : escapeEveryCodeUnit(node);
    if (node === null || typeof node === 'boolean') return JSON.stringify(node);
    if (Array.isArray(node))
      return `[${space()}${node.map((item) => write(item as JsonValue)).join(`${space()},${space()}`)}${space()}]`;
    const keys = Object.keys(node).sort(() => random() - 0.5);
    const members = keys.map(
      (key) =>
        `${space()}${JSON.stringify(key)}${space()}:${space()}${write((node as Record<string, JsonValue>)[key] as JsonValue)}`,
    );
    return `{${members.join(',')}${space()}}`;
  };
  return `${space()}${write(value)}${space()}`;
};

const parsed = (text: string): JsonValue => {
  const result = parseJson(text);
  if (!result.ok) throw result.error;
  return result.value;
};

type Path = (string | number)[];

const nodePaths = (value: JsonValue, path: Path = []): Path[] => {
  if (value === null || typeof value !== 'object') return [path];
  const children = Array.isArray(value)
    ? value.flatMap((item, index) => nodePaths(item as JsonValue, [...path, index]))
    : Object.entries(value).flatMap(([key, item]) => nodePaths(item, [...path, key]));
  return [path, ...children];
};

const nodeAt = (value: JsonValue, path: Path): JsonValue =>
  path.reduce<JsonValue>(
    (node, token) => (node as Record<string | number, JsonValue>)[token] as JsonValue,
    value,
  );

const replaceAt = (value: JsonValue, path: Path, replacement: JsonValue): JsonValue => {
  const [head, ...rest] = path;
  if (head === undefined) return replacement;
  if (Array.isArray(value))
    return value.map((item, index) =>
      index === head ? replaceAt(item as JsonValue, rest, replacement) : item,
    );
  const copy: Record<string, JsonValue> = {};
  for (const [key, item] of Object.entries(value as Record<string, JsonValue>)) {
    Object.defineProperty(copy, key, {
      value: key === head ? replaceAt(item, rest, replacement) : item,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
};

const sameScalar = (a: JsonValue, b: JsonValue): boolean =>
  typeof a !== 'object' && typeof b !== 'object' && a === b;
const isNullOrScalar = (node: JsonValue): boolean => node === null || typeof node !== 'object';

const request = (body: JsonValue) => ({
  method: 'POST',
  route: '/invoices/:id/payments',
  params: { id: 'inv-1' },
  body,
});

describe('canonical JSON properties', () => {
  it('key order and whitespace never change the canonical form or the fingerprint', () => {
    fc.assert(
      fc.property(jsonValue, fc.integer(), (value, seed) => {
        const scrambled = parsed(writeScrambled(value, randomFrom(seed)));
        expect(canonicalize(scrambled)).toBe(canonicalize(value));
        expect(fingerprint(request(scrambled))).toBe(fingerprint(request(value)));
      }),
    );
  });

  it('any change of a value changes the canonical form and the fingerprint', () => {
    fc.assert(
      fc.property(jsonValue, fc.nat(), scalar, (value, pick, replacement) => {
        const paths = nodePaths(value);
        const path = paths[pick % paths.length] as Path;
        const original = nodeAt(value, path);
        fc.pre(
          !(
            isNullOrScalar(original) &&
            isNullOrScalar(replacement) &&
            (sameScalar(original, replacement) || (original === null && replacement === null))
          ),
        );
        const changed = replaceAt(value, path, replacement);
        expect(canonicalize(changed)).not.toBe(canonicalize(value));
        expect(fingerprint(request(changed))).not.toBe(fingerprint(request(value)));
      }),
    );
  });

  it('adding a member to any object changes the fingerprint', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), jsonValue), fc.string(), scalar, (object, key, extra) => {
        fc.pre(!Object.hasOwn(object, key));
        const bigger = replaceAt(object, [], { ...object, [key]: extra });
        Object.defineProperty(bigger, key, { value: extra, enumerable: true });
        expect(fingerprint(request(bigger))).not.toBe(fingerprint(request(object)));
      }),
    );
  });

  it('canonicalize(parseJson(canonical)) is a fixed point', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        const canonical = canonicalize(value);
        expect(canonicalize(parsed(canonical))).toBe(canonical);
      }),
    );
  });

  it('parseJson agrees with JSON.parse on texts without duplicate keys', () => {
    fc.assert(
      fc.property(jsonValue, fc.integer(), fc.constantFrom(undefined, 0, 2, '\t'), (value, seed, indent) => {
        for (const text of [JSON.stringify(value, null, indent), writeScrambled(value, randomFrom(seed))]) {
          expect(parsed(text)).toStrictEqual(JSON.parse(text));
        }
      }),
    );
  });

  it('refuses unpaired surrogates exactly where the decoded strings hold them', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary' }), { maxLength: 4 }), (strings) => {
        const text = JSON.stringify(strings);
        const result = parseJson(text);
        const wellFormed = strings.every((text) => !/\p{Surrogate}/u.test(text));
        if (wellFormed) expect(result.ok && result.value).toStrictEqual(JSON.parse(text));
        else expect(result.ok ? 'ok' : result.error.code).toBe('lone-surrogate');
      }),
    );
  });

  it('refuses every damaged text JSON.parse refuses, and agrees on the rest', () => {
    const damage = fc.tuple(
      fc.nat(),
      fc.constantFrom('delete', 'insert', 'replace'),
      fc.constantFrom(...'{}[],:"\\ 0123456789eE.+-tfnaul/\u0000\n'),
    );
    fc.assert(
      fc.property(jsonValue, fc.array(damage, { minLength: 1, maxLength: 3 }), (value, damages) => {
        let text = JSON.stringify(value);
        for (const [at, kind, char] of damages) {
          const index = text.length === 0 ? 0 : at % (text.length + 1);
          text =
            kind === 'delete'
              ? text.slice(0, index) + text.slice(index + 1)
              : kind === 'insert'
                ? text.slice(0, index) + char + text.slice(index)
                : text.slice(0, index) + char + text.slice(index + 1);
        }
        const result = parseJson(text);
        let expected: unknown;
        try {
          expected = JSON.parse(text);
        } catch {
          expect(result.ok).toBe(false);
          return;
        }
        if (result.ok) expect(result.value).toStrictEqual(expected);
        else expect(['duplicate-key', 'non-finite-number', 'lone-surrogate']).toContain(result.error.code);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses arbitrary strings JSON.parse refuses', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii', maxLength: 12 }), (text) => {
        let acceptedByJsonParse = true;
        try {
          JSON.parse(text);
        } catch {
          acceptedByJsonParse = false;
        }
        const result = parseJson(text);
        if (!acceptedByJsonParse) expect(result.ok).toBe(false);
        else if (result.ok) expect(result.value).toStrictEqual(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
  });
});
