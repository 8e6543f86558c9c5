/** HTTP methods that change state and therefore carry an `Idempotency-Key`. */
export type IntentMethod = 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What the user decided to do, as the caller describes it to {@link IdempotentClient.createIntent}. */
export interface IntentRequest {
  readonly method: IntentMethod;
  /** A path resolved against the client's `baseUrl`, or an absolute URL. */
  readonly path: string;
  /** A JSON value, serialised once when the intent is created so every attempt sends the same bytes. */
  readonly body?: unknown;
  /**
   * Extra headers stored with the intent. Credentials never go here (they would be stored at rest):
   * pass them through the client's `headers` option, which is asked again before every attempt.
   */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The request as stored: the body is already JSON text. */
export interface StoredRequest {
  readonly method: IntentMethod;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly bodyText?: string;
}

/** One user intent: its key is made once and every attempt, after any reload or restart, sends it. */
export interface Intent {
  readonly key: string;
  readonly request: StoredRequest;
  /** Milliseconds since the Unix epoch, from the client's clock. */
  readonly createdAt: number;
}

const FORBIDDEN_STORED_HEADERS = new Set([
  'authorization',
  'cookie',
  'proxy-authorization',
  'idempotency-key',
]);
const METHODS = new Set<string>(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Turns the caller's request into the form that is stored and replayed: the body becomes JSON text once,
 * header names become lower case. Throws a `TypeError` for a defect in the request (an unknown method,
 * credentials or an `Idempotency-Key` among the stored headers, a body JSON cannot express).
 *
 * @param request the caller's request.
 * @example
 * const stored = toStoredRequest({ method: 'POST', path: '/invoices', body: { total: 1200 } });
 */
export const toStoredRequest = (request: IntentRequest): StoredRequest => {
  if (!METHODS.has(request.method))
    throw new TypeError(`An intent needs POST, PUT, PATCH or DELETE, not ${String(request.method)}`);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    const lowerName = name.toLowerCase();
    if (FORBIDDEN_STORED_HEADERS.has(lowerName)) {
      throw new TypeError(
        `The ${lowerName} header is not stored with an intent; pass it through the client's headers option`,
      );
    }
    headers[lowerName] = value;
  }
  if (request.body === undefined) return { method: request.method, path: request.path, headers };
  const bodyText = JSON.stringify(request.body);
  if (typeof bodyText !== 'string') throw new TypeError('An intent body must be a JSON value');
  headers['content-type'] ??= 'application/json';
  return { method: request.method, path: request.path, headers, bodyText };
};
