import { CanonicalJsonError } from '../errors/index.js';
import { resolveMaxDepth } from '../json/depth-limit.js';
import type { JsonLimits, JsonValue } from '../json/index.js';
import { JsonTextParser } from './json-text-parser.js';

/** What `parseJson` gives back: the value, or the reason the text was refused. */
export type ParseJsonResult =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly error: CanonicalJsonError };

/**
 * Parses raw JSON text (e.g. a request body) strictly, returning a result instead of throwing.
 *
 * It accepts exactly the grammar `JSON.parse` accepts and builds the same value, and it also refuses what
 * `JSON.parse` silently lets through: duplicate keys (`duplicate-key`; JSON.parse keeps the last one), nesting
 * deeper than `maxDepth` (`too-deep`), `\uD800`-style escapes that leave an unpaired surrogate (`lone-surrogate`)
 * and numbers that overflow to Infinity (`non-finite-number`). Any other malformed text is `invalid-json`.
 * The error carries the UTF-16 offset and a JSON Pointer to the place. Linear time; no recursion.
 *
 * @param text - the JSON text.
 * @param options - `maxDepth`: how many arrays/objects may nest (default 64).
 * @example
 * const parsed = parseJson('{"amount":100,"amount":200}');
 * if (!parsed.ok) parsed.error.code; // 'duplicate-key'
 */
export const parseJson = (text: string, options?: JsonLimits): ParseJsonResult => {
  const parser = new JsonTextParser(text, resolveMaxDepth(options));
  try {
    return { ok: true, value: parser.parseDocument() };
  } catch (error) {
    if (error instanceof CanonicalJsonError) return { ok: false, error };
    throw error;
  }
};
