import { hash } from 'node:crypto';
import { canonicalize } from '../canonicalize/index.js';
import { resolveMaxDepth } from '../json/depth-limit.js';
import type { JsonLimits } from '../json/index.js';

/** The parts of a request that decide whether a repeated Idempotency-Key names the same request. */
export interface FingerprintedRequest {
  /** The HTTP method; compared case-insensitively (upper-cased before hashing). */
  readonly method: string;
  /** The route TEMPLATE, e.g. `/invoices/:id/payments`, not the concrete URL (the ids are in `params`). */
  readonly route: string;
  /** The path parameters; absent means `{}`. */
  readonly params?: Readonly<Record<string, unknown>>;
  /** The parsed body; absent (no body) hashes as `null`. */
  readonly body?: unknown;
}

/**
 * The request fingerprint: lowercase hex SHA-256 over the RFC 8785 canonical JSON of
 * `{ method, route, params, body }`, so key order and whitespace in the body never change it and any change of a
 * value does. `maxDepth` applies to the body and params as sent (the envelope around them does not count).
 *
 * @param request - method, route template, path params and parsed body.
 * @param options - `maxDepth` for the body (default 64).
 * @returns 64 lowercase hex characters.
 * @throws {CanonicalJsonError} when params or body hold a value that is not JSON (see `canonicalize`).
 * @example
 * fingerprint({ method: 'post', route: '/invoices/:id/payments', params: { id: 'inv-1' }, body: { amount: 100 } });
 */
export const fingerprint = (request: FingerprintedRequest, options?: JsonLimits): string =>
  fingerprintOfText(fingerprintText(request, options));

/**
 * The text a request's fingerprint hashes: the canonical JSON of `{ method, route, params, body }`, the method
 * upper-cased and a missing body `null`. `JSON.parse` gives the request back as those four fields.
 *
 * @example
 * fingerprintText({ method: 'post', route: '/r/:id', params: { id: 'a' } }); // '{"body":null,"method":"POST",…}'
 */
export const fingerprintText = (request: FingerprintedRequest, options?: JsonLimits): string => {
  const envelope = {
    method: request.method.toUpperCase(),
    route: request.route,
    params: request.params ?? {},
    body: request.body === undefined ? null : request.body,
  };
  return canonicalize(envelope, { maxDepth: resolveMaxDepth(options) + 1 });
};

/** The fingerprint of a text `fingerprintText` wrote (`fingerprint` is the two in one). */
export const fingerprintOfText = (text: string): string => hash('sha256', text, 'hex');
