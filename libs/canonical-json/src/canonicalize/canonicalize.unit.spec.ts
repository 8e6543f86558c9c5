import { describe, expect, it } from 'vitest';
import { CanonicalJsonError } from '../errors/index.js';
import type { CanonicalJsonErrorCode } from '../errors/index.js';
import { canonicalize } from './canonicalize.js';

const nested = (depth: number): unknown => {
  let value: unknown = 0;
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { k: value };
  return value;
};

const refusal = (value: unknown, options?: { maxDepth?: number }) => {
  try {
    canonicalize(value, options);
  } catch (error) {
    if (error instanceof CanonicalJsonError) return { code: error.code, pointer: error.data.pointer };
    throw error;
  }
  throw new Error('expected canonicalize to refuse the value');
};

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

describe('canonicalize', () => {
  it('writes scalars, empty containers and nesting without whitespace', () => {
    expect(canonicalize(null)).toBe('null');
    expect(canonicalize(true)).toBe('true');
    expect(canonicalize(false)).toBe('false');
    expect(canonicalize([])).toBe('[]');
    expect(canonicalize({})).toBe('{}');
    expect(canonicalize({ z: [1, { y: 'a', x: null }], a: {} })).toBe('{"a":{},"z":[1,{"x":null,"y":"a"}]}');
  });

  it('accepts objects without a prototype and an own "__proto__" key', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare['b'] = 1;
    Object.defineProperty(bare, '__proto__', { value: 2, enumerable: true });
    expect(canonicalize(bare)).toBe('{"__proto__":2,"b":1}');
  });

  it('accepts the same object twice when it is not its own ancestor', () => {
    const shared = { n: 1 };
    expect(canonicalize({ a: shared, b: [shared, shared] })).toBe('{"a":{"n":1},"b":[{"n":1},{"n":1}]}');
  });

  it.each<[string, unknown, CanonicalJsonErrorCode, string]>([
    ['undefined', undefined, 'not-json', ''],
    ['an undefined property', { a: { b: undefined } }, 'not-json', '/a/b'],
    ['a function', { f: () => 1 }, 'not-json', '/f'],
    ['a symbol', [Symbol('s')], 'not-json', '/0'],
    ['a BigInt', { n: 1n }, 'not-json', '/n'],
    ['a Date', { at: new Date(0) }, 'not-json', '/at'],
    ['a Map', new Map(), 'not-json', ''],
    ['a class instance', { p: new Point(1, 2) }, 'not-json', '/p'],
    ['a boxed string', [new String('x')], 'not-json', '/0'],
    // eslint-disable-next-line no-sparse-arrays -- the hole is the case
    ['a sparse array hole', [1, , 3], 'not-json', '/1'],
    ['a symbol-keyed property', { [Symbol('k')]: 1 }, 'not-json', ''],
    ['NaN', { x: NaN }, 'non-finite-number', '/x'],
    ['Infinity', [Infinity], 'non-finite-number', '/0'],
    ['-Infinity', -Infinity, 'non-finite-number', ''],
    ['a lone high surrogate in a string', { s: 'a\ud800' }, 'lone-surrogate', '/s'],
    ['a lone low surrogate in a string', ['\udc00b'], 'lone-surrogate', '/0'],
    ['reversed surrogates', '\ude00\ud83d', 'lone-surrogate', ''],
    ['a lone surrogate in a key', { ok: { 'k\ud83d': 1 } }, 'lone-surrogate', '/ok/k\ud83d'],
    ['a key with / and ~', { 'a/b~c': undefined }, 'not-json', '/a~1b~0c'],
  ])('refuses %s', (_name, value, code, pointer) => {
    expect(refusal(value)).toEqual({ code, pointer });
  });

  it('refuses cycles through objects and arrays', () => {
    const object: Record<string, unknown> = { a: 1 };
    object['self'] = object;
    expect(refusal(object)).toEqual({ code: 'cycle', pointer: '/self' });
    const array: unknown[] = [];
    array.push({ inner: array });
    expect(refusal(array)).toEqual({ code: 'cycle', pointer: '/0/inner' });
  });

  it('accepts nesting up to the default limit of 64 and refuses 65', () => {
    expect(() => canonicalize(nested(64))).not.toThrow();
    expect(refusal(nested(65)).code).toBe('too-deep');
  });

  it('honours a configured depth limit', () => {
    expect(canonicalize([[1]], { maxDepth: 2 })).toBe('[[1]]');
    expect(refusal([[[1]]], { maxDepth: 2 })).toEqual({ code: 'too-deep', pointer: '/0/0' });
    expect(refusal([], { maxDepth: 0 }).code).toBe('too-deep');
    expect(canonicalize('scalar', { maxDepth: 0 })).toBe('"scalar"');
  });

  it('rejects a nonsensical depth limit as a defect', () => {
    expect(() => canonicalize(1, { maxDepth: -1 })).toThrow(RangeError);
    expect(() => canonicalize(1, { maxDepth: 1.5 })).toThrow(RangeError);
  });

  it('does not call toJSON', () => {
    expect(refusal({ v: { toJSON: () => 'x' } })).toEqual({ code: 'not-json', pointer: '/v/toJSON' });
  });

  it('keeps a readable message, a name and the standard cause slot', () => {
    const error = new CanonicalJsonError('cycle', { pointer: '' }, 'm', { cause: 'c' });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('CanonicalJsonError');
    expect(error.cause).toBe('c');
  });
});
