import { CanonicalJsonError } from '../errors/index.js';

/**
 * Serialises a number as RFC 8785 §3.2.2.3 requires: ECMAScript's Number::toString (shortest round-trip digits,
 * exponent form below 1e-6 and from 1e21 on), with -0 written as `0`.
 * Returns null for NaN and ±Infinity, which have no JSON form; the caller says where they were.
 */
export const serializeFiniteNumber = (value: number): string | null => {
  if (!Number.isFinite(value)) return null;
  // String(-0) is already "0", but the RFC names the case, so it is spelled out rather than left to chance.
  if (value === 0) return '0';
  return String(value);
};

/** Serialises a number or raises `non-finite-number` at the JSON Pointer that `locate` gives. */
export const serializeNumber = (value: number, locate: () => string): string => {
  const serialized = serializeFiniteNumber(value);
  if (serialized === null) {
    throw new CanonicalJsonError(
      'non-finite-number',
      { pointer: locate() },
      `${String(value)} is not a JSON number`,
    );
  }
  return serialized;
};
