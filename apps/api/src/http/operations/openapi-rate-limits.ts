import { problemContent } from '../problems/index.js';
import type { RateLimitSettings } from './rate-limits.js';
import { rateLimitHeader, rateLimitPolicy, rateLimitPolicyHeader } from './rate-limits.js';

interface Response {
  description?: string;
  headers?: Record<string, unknown>;
}

interface Operation {
  responses?: Record<string, Response>;
  'x-once-role'?: string;
}

const retryAfter = {
  description: 'Seconds to wait before retrying.',
  schema: { type: 'integer', minimum: 0 },
};

const rateLimitFields = (policies: readonly string[]) => ({
  [rateLimitPolicyHeader]: {
    description:
      'The rate limits this request counted against (IETF RateLimit fields draft): per policy, its quota `q` per ' +
      'window of `w` seconds.',
    schema: { type: 'string', example: policies.join(', ') },
  },
  [rateLimitHeader]: {
    description:
      'What is left of each policy: `r` requests remaining, `t` seconds until the window resets (IETF RateLimit ' +
      'fields draft).',
    schema: {
      type: 'string',
      example: policies.map((policy) => `${policy.split(';')[0] ?? ''};r=41;t=17`).join(', '),
    },
  },
});

const tooManyRequests = (headers: Record<string, unknown>) => ({
  description:
    'Too many requests from this client address or this tenant (problem `rate-limited`). Nothing was done; retry ' +
    'after `Retry-After` seconds, with the same Idempotency-Key for a command.',
  headers: { 'Retry-After': retryAfter, ...headers },
  content: problemContent(),
});

/**
 * Documents the rate limits on every operation (the limits run before any route): the RateLimit fields on each of its
 * answers, and the 429 it answers once a limit is reached. An authenticated operation counts against both policies,
 * a public one against the per-address one only. Without limits the document declares none of it.
 *
 * @param settings the limits the api runs with; undefined when it runs without.
 * @example
 * transformObject: (document) => documentRateLimits(documentConsistencyHeaders(document), settings.rateLimits),
 */
export const documentRateLimits = <Document extends { paths?: unknown }>(
  document: Document,
  settings: RateLimitSettings | undefined,
): Document => {
  if (!settings) return document;
  const address = rateLimitPolicy('address', settings.perAddress);
  const tenant = rateLimitPolicy('tenant', settings.perTenant);
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      if (typeof operation !== 'object' || operation === null) continue;
      const headers = rateLimitFields(operation['x-once-role'] === 'public' ? [address] : [address, tenant]);
      // Fresh response objects: a response may be shared between operations (the 403 of every role above staff).
      const responses = Object.entries({ ...operation.responses, '429': tooManyRequests(headers) }).map(
        ([status, response]) =>
          [status, { ...response, headers: { ...response.headers, ...headers } }] as const,
      );
      operation.responses = Object.fromEntries(responses);
    }
  }
  return document;
};
