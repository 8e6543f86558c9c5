import { describe, expect, it } from 'vitest';
import { parseJson } from '../parse/index.js';
import { canonicalize } from './canonicalize.js';

const parse = (text: string) => {
  const parsed = parseJson(text);
  if (!parsed.ok) throw parsed.error;
  return parsed.value;
};

describe('RFC 8785 examples', () => {
  it('canonicalises the sample object of §3.2.2 / §3.2.3', () => {
    const input = String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50,
                  2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`;
    expect(canonicalize(parse(input))).toBe(
      String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
    );
  });

  it('sorts the §3.2.3 property names by UTF-16 code units, surrogate pairs before U+FB33', () => {
    const input = String.raw`{
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis"
    }`;
    const canonical = canonicalize(parse(input));
    // Read the order from the text: JSON.parse would move the integer-like key "1" to the front.
    const titles = [...canonical.matchAll(/:"([^"]+)"/g)].map((match) => match[1]);
    expect(titles).toEqual([
      'Carriage Return',
      'One',
      'Control',
      'Latin Small Letter O With Diaeresis',
      'Euro Sign',
      'Emoji: Grinning Face',
      'Hebrew Letter Dalet With Dagesh',
    ]);
    expect(canonical.startsWith(String.raw`{"\r":"Carriage Return","1":"One","`)).toBe(true);
  });

  it('does not sort with localeCompare (upper case before lower case, by code unit)', () => {
    expect(canonicalize({ b: 1, a: 2, B: 3, A: 4, ä: 5, '': 6 })).toBe(
      '{"":6,"A":4,"B":3,"a":2,"b":1,"ä":5}',
    );
  });

  it('sorts keys before writing them, not by their escaped form', () => {
    // "\n" (U+000A) sorts before "!" (U+0021) although its escaped form "\\n" would not.
    expect(canonicalize({ '!': 1, '\n': 2 })).toBe('{"\\n":2,"!":1}');
  });
});

describe('RFC 8785 string escaping (§3.2.2.2)', () => {
  const cases: [name: string, input: string, expected: string][] = [
    ['quotation mark', '"', String.raw`"\""`],
    ['reverse solidus', '\\', String.raw`"\\"`],
    ['solidus is not escaped', '/', '"/"'],
    ['backspace', '\b', String.raw`"\b"`],
    ['tab', '\t', String.raw`"\t"`],
    ['line feed', '\n', String.raw`"\n"`],
    ['form feed', '\f', String.raw`"\f"`],
    ['carriage return', '\r', String.raw`"\r"`],
    ['U+0000 in lowercase hex', '\u0000', String.raw`"\u0000"`],
    ['U+000F in lowercase hex', '\u000f', String.raw`"\u000f"`],
    ['U+000B (vertical tab) has no short form', '\u000b', String.raw`"\u000b"`],
    ['U+001F in lowercase hex', '\u001f', String.raw`"\u001f"`],
    ['U+001A in lowercase hex', '\u001a', String.raw`"\u001a"`],
    ['U+007F (DEL) is written as is', '\u007f', '"\u007f"'],
    ['non-ASCII is written as is', 'é€', '"é€"'],
    ['a surrogate pair is written as is', '😀', '"😀"'],
    ['U+2028 is written as is', '\u2028', '"\u2028"'],
    ['mixed', 'a"b\\c\nd', String.raw`"a\"b\\c\nd"`],
  ];

  it.each(cases)('%s', (_name, input, expected) => {
    expect(canonicalize(input)).toBe(expected);
  });
});
