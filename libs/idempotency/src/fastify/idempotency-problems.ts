/** The problems the idempotency layer answers with (RFC 9457), one documented `type` each. */
export const idempotencyProblems = {
  'idempotency-key-missing': {
    status: 400,
    title: 'Idempotency-Key is missing',
    description:
      'Every command (POST/PATCH) needs an Idempotency-Key header: one key per user intent, reused on every retry.',
  },
  'idempotency-key-invalid': {
    status: 400,
    title: 'Idempotency-Key is malformed',
    description:
      'The key must be one sf-string ("...") or bare value of 8-255 visible ASCII characters, sent on one header line, without parameters or lists.',
  },
  'idempotency-key-in-flight': {
    status: 409,
    title: 'A request is outstanding for this Idempotency-Key',
    description:
      'The first request with this key is still running. Retry the same request after Retry-After seconds.',
  },
  'idempotency-key-reused': {
    status: 422,
    title: 'Idempotency-Key is already used',
    description:
      'This key was used for a different request (method, route, parameters or body). Use a new key for a new intent.',
  },
  'internal-error': {
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
  unauthenticated: {
    status: 401,
    title: 'Not authenticated',
    description: 'Commands are scoped to the caller; send valid credentials.',
  },
} as const;

export type IdempotencyProblemType = keyof typeof idempotencyProblems;

/** An RFC 9457 problem document. */
export interface ProblemDocument {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail?: string;
  readonly [extension: string]: unknown;
}
