/**
 * Why a value or a JSON text was refused.
 * - `non-finite-number`: NaN or ±Infinity (JSON has no such numbers; in text, a literal that overflows to Infinity).
 * - `lone-surrogate`: a string or key holding an unpaired UTF-16 surrogate (I-JSON, RFC 7493 §2.1).
 * - `duplicate-key`: an object in JSON text names the same key twice.
 * - `too-deep`: arrays and objects nested deeper than the configured limit.
 * - `not-json`: a value that is not a plain object, array, string, finite number, boolean or null.
 * - `cycle`: an object or array that contains itself.
 * - `invalid-json`: text that is not JSON at all (what `JSON.parse` would reject).
 */
export type CanonicalJsonErrorCode =
  | 'non-finite-number'
  | 'lone-surrogate'
  | 'duplicate-key'
  | 'too-deep'
  | 'not-json'
  | 'cycle'
  | 'invalid-json';

/** Where the problem is: a JSON Pointer (RFC 6901) into the value, and for text the UTF-16 offset. */
export interface CanonicalJsonErrorData {
  readonly pointer: string;
  readonly offset?: number;
}

/** The one error this library raises (or returns, from `parseJson`); branch on `code`, never on the message. */
export class CanonicalJsonError<Code extends CanonicalJsonErrorCode = CanonicalJsonErrorCode> extends Error {
  override readonly name = 'CanonicalJsonError';

  constructor(
    readonly code: Code,
    readonly data: CanonicalJsonErrorData,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
