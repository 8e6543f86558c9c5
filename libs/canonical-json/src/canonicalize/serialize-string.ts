import { CanonicalJsonError } from '../errors/index.js';
import { hasLoneSurrogate } from '../json/unicode.js';

const shortEscapes: Readonly<Record<number, string>> = {
  0x08: '\\b',
  0x09: '\\t',
  0x0a: '\\n',
  0x0c: '\\f',
  0x0d: '\\r',
  0x22: '\\"',
  0x5c: '\\\\',
};

const escapeCodeUnit = (codeUnit: number): string =>
  shortEscapes[codeUnit] ?? `\\u${codeUnit.toString(16).padStart(4, '0')}`;

/**
 * Serialises a string as RFC 8785 §3.2.2.2 requires: only `"`, `\` and code units below U+0020 are escaped
 * (`\b \t \n \f \r` in short form, the rest as `\u00xx` in lowercase hex); everything else, `/` and U+007F
 * included, is written as is. A lone surrogate raises `lone-surrogate` at the JSON Pointer that `locate` gives.
 */
export const serializeString = (value: string, locate: () => string): string => {
  if (hasLoneSurrogate(value)) {
    throw new CanonicalJsonError(
      'lone-surrogate',
      { pointer: locate() },
      'string holds an unpaired UTF-16 surrogate',
    );
  }
  let serialized = '"';
  let copiedUpTo = 0;
  for (let index = 0; index < value.length; index++) {
    const codeUnit = value.charCodeAt(index);
    if (codeUnit >= 0x20 && codeUnit !== 0x22 && codeUnit !== 0x5c) continue;
    serialized += value.slice(copiedUpTo, index) + escapeCodeUnit(codeUnit);
    copiedUpTo = index + 1;
  }
  return `${serialized}${value.slice(copiedUpTo)}"`;
};
