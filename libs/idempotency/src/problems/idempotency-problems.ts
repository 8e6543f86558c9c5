import { ProblemCatalog } from './problem-catalog.js';
import type { ProblemTypeOf } from './problem-catalog.js';

/**
 * The problems the idempotency layer answers with (RFC 9457), documented under `https://once.dev/problems/`.
 * An app extends this catalogue with its own types (and its own words for these) and answers every problem from it.
 */
export const idempotencyProblems = ProblemCatalog.of(
  {
    'idempotency-key-missing': {
      status: 400,
      title: 'Idempotency-Key is missing',
      description:
        'Every command (POST/PATCH) needs an Idempotency-Key header: one key per user intent, reused on every retry.',
      describedBy: true,
    },
    'idempotency-key-invalid': {
      status: 400,
      title: 'Idempotency-Key is malformed',
      description:
        'The key must be one sf-string ("...") or bare value of 8-255 visible ASCII characters, sent on one header line, without parameters or lists.',
      describedBy: true,
    },
    'idempotency-key-in-flight': {
      status: 409,
      title: 'A request is outstanding for this Idempotency-Key',
      description:
        'The first request with this key is still running. Retry the same request after Retry-After seconds.',
      describedBy: true,
    },
    'idempotency-key-reused': {
      status: 422,
      title: 'Idempotency-Key is already used',
      description:
        'This key was used for a different request (method, route, parameters or body). Use a new key for a new intent.',
      describedBy: true,
    },
    'idempotency-key-expired': {
      status: 422,
      title: 'Idempotency-Key was used before and its answer has expired',
      description:
        'This key was used for a request whose effect is recorded, and its answer is kept no longer (keys expire after the documented retention). Nothing was applied again. Read the resource for the outcome; use a new key for a new intent.',
      describedBy: true,
    },
    internal: {
      status: 500,
      title: 'Internal error',
      description:
        'The command failed before anything was applied; nothing was stored. Retrying with the same key runs it again.',
    },
    'service-unavailable': {
      status: 503,
      title: 'Service temporarily unavailable',
      description:
        'A transient failure or contention. Retry the same request with the same key after Retry-After seconds.',
    },
    unauthorized: {
      status: 401,
      title: 'Not authenticated',
      description: 'Commands are scoped to the caller; send valid credentials.',
    },
  },
  { base: 'https://once.dev/problems/' },
);

export type IdempotencyProblemType = ProblemTypeOf<typeof idempotencyProblems>;
