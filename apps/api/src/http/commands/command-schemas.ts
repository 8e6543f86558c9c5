import { z } from 'zod';

/** The `Idempotency-Key` request header as documented on every command route. */
export const idempotencyKeyHeader = z.object({
  'idempotency-key': z
    .string()
    .optional()
    .describe(
      'One key per intent (8–255 visible ASCII, sf-string or bare); every retry reuses it. Required: the OpenAPI ' +
        'document says so, and a request without one is refused with `/problems/idempotency-key-missing`.',
    ),
});

export const problemView = z
  .object({ type: z.string(), title: z.string(), status: z.number(), detail: z.string().optional() })
  .loose()
  .describe('RFC 9457 problem details (application/problem+json)');

/** The problems any command route can answer with. */
export const commandProblems = {
  400: problemView,
  401: problemView,
  404: problemView,
  409: problemView,
  422: problemView,
  503: problemView,
};
