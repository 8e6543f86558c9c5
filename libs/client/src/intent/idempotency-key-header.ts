const VISIBLE_ASCII = /^[\x21-\x7e]{8,255}$/;

/**
 * Tells whether a key fits the server's contract: 8 to 255 visible ASCII characters.
 *
 * @param key the candidate key.
 * @example
 * isValidIdempotencyKey('0192f0c4-7d1e-7a3b-9c4d-5e6f708192a3'); // true
 */
export const isValidIdempotencyKey = (key: string): boolean => VISIBLE_ASCII.test(key);

/**
 * Formats the `Idempotency-Key` header value as an RFC 9651 sf-string: the key in double quotes, with `"` and
 * `\` escaped. The quoted form is the one the Idempotency-Key draft specifies; the server also accepts a bare token.
 *
 * @param key a key that passes {@link isValidIdempotencyKey}.
 * @example
 * formatIdempotencyKeyHeader('0192f0c4-7d1e-7a3b-9c4d-5e6f708192a3'); // '"0192f0c4-7d1e-7a3b-9c4d-5e6f708192a3"'
 */
export const formatIdempotencyKeyHeader = (key: string): string =>
  `"${key.replace(/["\\]/g, (char) => `\\${char}`)}"`;
