/** What a raised problem says beyond its type. */
export interface ProblemOptions {
  /** A sentence about this occurrence (RFC 9457 `detail`). */
  readonly detail?: string;
  /** Members added to the body after `detail` (`reason`, `errors`, `data`, …). */
  readonly extensions?: Readonly<Record<string, unknown>>;
  /** Response headers added to the answer (`www-authenticate`, …). */
  readonly headers?: Readonly<Record<string, string>>;
  /** When to retry, sent as `Retry-After`. */
  readonly retryAfterSeconds?: number;
  /** The failure behind it (the standard `Error.cause`), never sent. */
  readonly cause?: unknown;
}

/**
 * A problem raised on purpose: a documented `type` of a problem catalogue and what this occurrence adds. A root
 * error handler answers it through its catalogue (`catalog.answer(problem)`).
 *
 * @example
 * throw new Problem('not-found', { detail: 'no order o-1' });
 */
export class Problem<Type extends string = string> extends Error {
  constructor(
    readonly type: Type,
    readonly options: ProblemOptions = {},
  ) {
    super(options.detail ?? type, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}
