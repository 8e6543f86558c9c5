import { DEFAULT_MAX_DEPTH } from './depth-limit.js';
import type { JsonValue } from './json-value.js';
import { isPlainObject } from './plain-object.js';

/**
 * Whether `value` is the JSON value `known` is: what comparing their canonical forms would say, without writing
 * either. True only where `canonicalize(value)` would succeed and equal `canonicalize(known)`: the same keys and
 * values at every level, key order aside, `-0` equal to `0`; false for anything `canonicalize` refuses (a class
 * instance, a symbol key, a hole, a number that is not finite) and past `maxDepth` levels, where a caller
 * canonicalises to learn why.
 *
 * @param known - a JSON value, such as `JSON.parse` gives.
 * @param value - any value.
 * @example
 * sameJsonValue({ a: 1, b: [true] }, { b: [true], a: 1 }); // true
 */
export const sameJsonValue = (known: JsonValue, value: unknown, maxDepth = DEFAULT_MAX_DEPTH): boolean => {
  if (typeof known !== 'object' || known === null) return known === value;
  if (typeof value !== 'object' || value === null || maxDepth === 0) return false;
  if (Array.isArray(known)) {
    if (!Array.isArray(value) || value.length !== known.length) return false;
    for (let index = 0; index < known.length; index++) {
      if (!(index in value) || !sameJsonValue(known[index] as JsonValue, value[index], maxDepth - 1))
        return false;
    }
    return true;
  }
  if (Array.isArray(value) || !isPlainObject(value) || Object.getOwnPropertySymbols(value).length > 0)
    return false;
  const keys = Object.keys(value);
  if (keys.length !== Object.keys(known).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(known, key)) return false;
    const field = (known as Readonly<Record<string, JsonValue>>)[key] as JsonValue;
    if (!sameJsonValue(field, (value as Readonly<Record<string, unknown>>)[key], maxDepth - 1)) return false;
  }
  return true;
};
