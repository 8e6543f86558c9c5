import { describe, expect, it } from 'vitest';
import type { JsonLimits } from '../json/index.js';
import { parseJson } from './parse-json.js';

const valueOf = (text: string, options?: JsonLimits) => {
  const parsed = parseJson(text, options);
  if (!parsed.ok) throw parsed.error;
  return parsed.value;
};

const errorOf = (text: string, options?: JsonLimits) => {
  const parsed = parseJson(text, options);
  if (parsed.ok) throw new Error(`expected ${JSON.stringify(text)} to be refused`);
  return { code: parsed.error.code, ...parsed.error.data };
};

const deepArray = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('parseJson', () => {
  it.each([
    ['0', 0],
    [' -12.5e1 ', -125],
    ['"a\\u00e9\\n\\/\\"\\\\"', 'aé\n/"\\'],
    ['"\\ud83d\\ude00"', '😀'],
    ['\t\r\n[ true , false , null ]\n', [true, false, null]],
    ['{"a":{"b":[1,{}]},"c":[]}', { a: { b: [1, {}] }, c: [] }],
    ['{"a":1,"A":2}', { a: 1, A: 2 }],
    ['"€😀\u2028"', '€😀\u2028'],
  ])('parses %s like JSON.parse', (text, expected) => {
    expect(valueOf(text)).toEqual(expected);
    expect(valueOf(text)).toEqual(JSON.parse(text));
  });

  it('creates an own "__proto__" property instead of setting the prototype', () => {
    const value = valueOf('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(value).toEqual(JSON.parse('{"__proto__":{"polluted":true},"a":1}'));
  });

  it.each([
    ['{"a":1,"a":2}', '/a', 7],
    ['{"amount":100,"x":{},"amount":200}', '/amount', 21],
    ['[{"k":{"x":1,"x":1}}]', '/0/k/x', 13],
    ['{"a":1,"\\u0061":2}', '/a', 7],
    ['{"":1,"":2}', '/', 6],
  ])('refuses duplicate keys in %s (JSON.parse keeps the last one)', (text, pointer, offset) => {
    expect(() => JSON.parse(text) as unknown).not.toThrow();
    expect(errorOf(text)).toEqual({ code: 'duplicate-key', pointer, offset });
  });

  it('accepts nesting up to the default limit of 64 and refuses 65', () => {
    expect(() => valueOf(deepArray(64))).not.toThrow();
    expect(errorOf(deepArray(65))).toMatchObject({ code: 'too-deep', offset: 64 });
    expect(errorOf(`${'{"a":'.repeat(65)}1${'}'.repeat(65)}`)).toMatchObject({
      code: 'too-deep',
      pointer: '/a'.repeat(64),
    });
  });

  it('honours a configured depth limit, without recursion at great depth', () => {
    expect(errorOf('[[1]]', { maxDepth: 1 })).toMatchObject({ code: 'too-deep', pointer: '/0' });
    expect(valueOf('"x"', { maxDepth: 0 })).toBe('x');
    expect(() => valueOf(deepArray(200_000), { maxDepth: 200_000 })).not.toThrow();
  });

  it('refuses unpaired surrogates written as escapes, in values and keys', () => {
    expect(() => JSON.parse('"\\ud800"') as unknown).not.toThrow();
    expect(errorOf('["ok","\\ud800"]')).toEqual({ code: 'lone-surrogate', pointer: '/1', offset: 6 });
    expect(errorOf('"\\udc00\\ud800"').code).toBe('lone-surrogate');
    expect(errorOf('{"\\ud83d":1}').code).toBe('lone-surrogate');
  });

  it('refuses numbers that overflow to Infinity', () => {
    expect(JSON.parse('[1e999]')).toEqual([Infinity]);
    expect(errorOf('[1e999]')).toEqual({ code: 'non-finite-number', pointer: '/0', offset: 1 });
    expect(errorOf('-1e400').code).toBe('non-finite-number');
  });

  it.each([
    '',
    ' ',
    '{',
    '}',
    '[',
    ']',
    '[1,]',
    '[,1]',
    '{"a":1,}',
    '{,}',
    "{'a':1}",
    '{a:1}',
    '{"a" 1}',
    '{"a":}',
    '{"a"}',
    '{1:1}',
    '[1 2]',
    '1 2',
    '{"a":1}}',
    '01',
    '-01',
    '1.',
    '.5',
    '+1',
    '-',
    '1e',
    '1e+',
    '1e1.5',
    '0x10',
    'tru',
    'nul',
    'True',
    'NaN',
    'Infinity',
    'undefined',
    '"abc',
    '"\t"',
    '"\n"',
    '"\u0000"',
    '"\\x"',
    '"\\u12"',
    '"\\u00G0"',
    '"\\',
    '"\\U0041"',
    '\uFEFF1',
    '\u00a01',
    '1\u2028',
    '// comment\n1',
    '[1]/*c*/',
  ])('refuses %j like JSON.parse does', (text) => {
    expect(() => JSON.parse(text) as unknown).toThrow(SyntaxError);
    expect(errorOf(text).code).toBe('invalid-json');
  });

  it('reports where invalid text goes wrong', () => {
    expect(errorOf('{"a":[1,2,}]}')).toEqual({ code: 'invalid-json', pointer: '/a/2', offset: 10 });
    expect(errorOf('[1] x')).toMatchObject({ offset: 4, pointer: '' });
  });

  it('parses a large body in one pass', () => {
    const items = Array.from({ length: 50_000 }, (_, index) => ({
      sku: `sku-${index}`,
      quantity: index,
      note: 'a\\"b',
    }));
    const text = JSON.stringify({ items });
    expect(valueOf(text)).toEqual(JSON.parse(text));
  });
});
