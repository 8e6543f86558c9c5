import { describe, expect, it } from 'vitest';
import { CanonicalJsonError } from '../errors/index.js';
import { parseJson } from '../parse/index.js';
import { canonicalize } from './canonicalize.js';

const fromIeee754Hex = (hex: string): number => {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
};

// RFC 8785 Appendix B: IEEE 754 bit pattern → the JSON text it must serialise to.
const appendixB: [hex: string, expected: string][] = [
  ['0000000000000000', '0'],
  ['8000000000000000', '0'],
  ['0000000000000001', '5e-324'],
  ['8000000000000001', '-5e-324'],
  ['7fefffffffffffff', '1.7976931348623157e+308'],
  ['ffefffffffffffff', '-1.7976931348623157e+308'],
  ['4340000000000000', '9007199254740992'],
  ['c340000000000000', '-9007199254740992'],
  ['4430000000000000', '295147905179352830000'],
  ['44b52d02c7e14af5', '9.999999999999997e+22'],
  ['44b52d02c7e14af6', '1e+23'],
  ['44b52d02c7e14af7', '1.0000000000000001e+23'],
  ['444b1ae4d6e2ef4e', '999999999999999700000'],
  ['444b1ae4d6e2ef4f', '999999999999999900000'],
  ['444b1ae4d6e2ef50', '1e+21'],
  ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
  ['3eb0c6f7a0b5ed8d', '0.000001'],
  ['41b3de4355555553', '333333333.3333332'],
  ['41b3de4355555554', '333333333.33333325'],
  ['41b3de4355555555', '333333333.3333333'],
  ['41b3de4355555556', '333333333.3333334'],
  ['41b3de4355555557', '333333333.33333343'],
  ['becbf647612f3696', '-0.0000033333333333333333'],
  ['43143ff3c1cb0959', '1424953923781206.2'],
];

// ECMAScript Number::toString edge cases: fixed notation for 1e-6 <= |x| < 1e21, exponent form outside.
const esEdgeCases: [name: string, value: number, expected: string][] = [
  ['minus zero', -0, '0'],
  ['1e21 switches to exponent form', 1e21, '1e+21'],
  ['just below 1e21 stays fixed', 999999999999999900000, '999999999999999900000'],
  ['1e20 stays fixed', 1e20, '100000000000000000000'],
  ['123456789012345680000 stays fixed', 123456789012345680000, '123456789012345680000'],
  // eslint-disable-next-line no-loss-of-precision -- the rounding of this literal is what the case checks
  ['12345678901234567890 rounds to 17 digits', 12345678901234567890, '12345678901234567000'],
  ['1e-7 switches to exponent form', 1e-7, '1e-7'],
  ['1.5e-7 in exponent form', 1.5e-7, '1.5e-7'],
  ['0.000001 stays fixed', 0.000001, '0.000001'],
  ['0.0000015 stays fixed', 0.0000015, '0.0000015'],
  ['333333333.3333333', 333333333.3333333, '333333333.3333333'],
  // eslint-disable-next-line no-loss-of-precision -- the rounding of this literal is what the case checks
  ['333333333.33333329 rounds', 333333333.33333329, '333333333.3333333'],
  ['5e-324', 5e-324, '5e-324'],
  ['1e-323', 1e-323, '1e-323'],
  ['4.35', 4.35, '4.35'],
  ['4.50 drops the trailing zero', 4.5, '4.5'],
  ['0.1 + 0.2', 0.1 + 0.2, '0.30000000000000004'],
  ['0.1', 0.1, '0.1'],
  ['1/3', 1 / 3, '0.3333333333333333'],
  ['2e-3', 2e-3, '0.002'],
  ['1e30', 1e30, '1e+30'],
  ['1e-27', 1e-27, '1e-27'],
  ['123e-20', 123e-20, '1.23e-18'],
  ['Number.MAX_SAFE_INTEGER', Number.MAX_SAFE_INTEGER, '9007199254740991'],
  ['-Number.MAX_SAFE_INTEGER', -Number.MAX_SAFE_INTEGER, '-9007199254740991'],
  ['2^53 + 2', 2 ** 53 + 2, '9007199254740994'],
  ['integer 100', 100, '100'],
  ['negative integer', -1, '-1'],
  ['negative fraction', -1.5, '-1.5'],
  ['zero', 0, '0'],
];

describe('number serialisation', () => {
  it.each(appendixB)('RFC 8785 Appendix B: %s → %s', (hex, expected) => {
    expect(canonicalize(fromIeee754Hex(hex))).toBe(expected);
  });

  it.each(esEdgeCases)('%s', (_name, value, expected) => {
    expect(canonicalize(value)).toBe(expected);
    expect(canonicalize([value])).toBe(`[${expected}]`);
  });

  it.each([
    ['9007199254740993', '9007199254740992'],
    ['1E400', null],
    ['-0', '0'],
    ['-0.0e5', '0'],
    ['1.000000000000000000000000001', '1'],
    ['0.30000000000000004', '0.30000000000000004'],
    ['100e-2', '1'],
    ['1e-400', '0'],
  ])('parses %s from text and writes %s', (text, expected) => {
    const parsed = parseJson(text);
    if (expected === null) {
      expect(parsed.ok ? null : parsed.error.code).toBe('non-finite-number');
      return;
    }
    if (!parsed.ok) throw parsed.error;
    expect(canonicalize(parsed.value)).toBe(expected);
  });

  it.each([
    ['7fffffffffffffff', 'NaN'],
    ['7ff0000000000000', 'Infinity'],
    ['fff0000000000000', '-Infinity'],
  ])('RFC 8785 Appendix B: %s (%s) is an error', (hex) => {
    expect(() => canonicalize({ a: [fromIeee754Hex(hex)] })).toThrow(
      expect.objectContaining({ code: 'non-finite-number', data: { pointer: '/a/0' } }),
    );
    expect(() => canonicalize(fromIeee754Hex(hex))).toThrow(CanonicalJsonError);
  });
});
