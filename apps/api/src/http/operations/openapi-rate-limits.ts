import { problemContent } from '../problems/index.js';

interface Operation {
  responses?: Record<string, unknown>;
}

const tooManyRequests = {
  description:
    'Too many requests from this client address or this tenant (problem `rate-limited`). Nothing was done; retry ' +
    'after `Retry-After` seconds, with the same Idempotency-Key for a command.',
  headers: {
    'Retry-After': {
      description: 'Seconds to wait before retrying.',
      schema: { type: 'integer', minimum: 0 },
    },
  },
  content: problemContent('/problems/rate-limited', 429),
};

/**
 * Documents the 429 every operation may answer once a rate limit is reached (the limits run before any route).
 *
 * @example
 * transformObject: (document) => documentRateLimits(documentConsistencyHeaders(document)),
 */
export const documentRateLimits = <Document extends { paths?: unknown }>(document: Document): Document => {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      if (typeof operation !== 'object' || operation === null) continue;
      operation.responses = { ...operation.responses, '429': tooManyRequests };
    }
  }
  return document;
};
