/**
 * The OpenAPI content of a problem answer: `application/problem+json` (RFC 9457) with the fields every problem has,
 * its `type` and `status` shown by example.
 *
 * @param type the problem type's URI, as the example.
 * @param status its status, as the example.
 * @example
 * const forbidden = { description: 'The role is too low.', content: problemContent('/problems/forbidden', 403) };
 */
export const problemContent = (type: string, status: number) => ({
  'application/problem+json': {
    schema: {
      type: 'object',
      required: ['type', 'title', 'status'],
      properties: {
        type: { type: 'string', example: type },
        title: { type: 'string' },
        status: { type: 'integer', example: status },
        detail: { type: 'string' },
        instance: { type: 'string' },
      },
    },
  },
});
