import { STATUS_CODES } from 'node:http';

/** The name of the shared problem schema under `components.schemas`. */
export const problemSchemaName = 'Problem';

const problemSchema = {
  type: 'object',
  description:
    'RFC 9457 problem details. `type` is one of the problem types listed at `/problems`; a problem may carry more ' +
    'members (its extensions).',
  required: ['type', 'title', 'status'],
  properties: {
    type: {
      type: 'string',
      description: 'The problem type (a URI reference).',
      example: '/problems/not-found',
    },
    title: {
      type: 'string',
      description: 'A short summary of the problem type; the same for every occurrence.',
    },
    status: { type: 'integer', description: 'The HTTP status of this answer.', example: 404 },
    detail: { type: 'string', description: 'What went wrong with this request.' },
    instance: { type: 'string', description: 'This occurrence of the problem.' },
  },
  additionalProperties: true,
};

/**
 * The OpenAPI content of a problem answer: `application/problem+json` (RFC 9457), its schema the shared
 * `#/components/schemas/Problem` that `documentProblemResponses` adds.
 *
 * @example
 * const forbidden = { description: 'The role is too low.', content: problemContent() };
 */
export const problemContent = () => ({
  'application/problem+json': { schema: { $ref: `#/components/schemas/${problemSchemaName}` } },
});

interface Response {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, unknown>;
}

interface Operation {
  responses?: Record<string, Response>;
}

interface Document {
  paths?: unknown;
  components?: { schemas?: Record<string, unknown> };
}

const retryAfter = {
  description: 'Seconds to wait before retrying (with the same Idempotency-Key for a command).',
  schema: { type: 'integer', minimum: 0 },
};

const isError = (status: string): boolean => /^[45]\d\d$/.test(status) || status === 'default';

// The route schemas' own description of a problem body says nothing a reader of one response needs.
const describedByRoute = (description: string | undefined): description is string =>
  description !== undefined && description !== '' && !description.startsWith('RFC 9457');

const errorDescription = (status: string, response: Response): string =>
  describedByRoute(response.description)
    ? response.description
    : `${STATUS_CODES[Number(status)] ?? 'Error'}: a problem (\`application/problem+json\`) whose \`type\` is listed at \`/problems\`.`;

/**
 * Makes every error answer of the document what the api sends: `application/problem+json` with the one shared
 * `Problem` schema (routes declare their error statuses with a zod schema that the generator renders as
 * `application/json`, repeated per route); a 503 says when to retry (`Retry-After`), as each of them does.
 *
 * @example
 * transformObject: (document) => documentProblemResponses(document.openapiObject),
 */
export const documentProblemResponses = <Target extends Document>(document: Target): Target => {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      if (typeof operation !== 'object' || operation === null || !operation.responses) continue;
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!isError(status)) continue;
        const headers =
          status === '503' ? { ...response.headers, 'Retry-After': retryAfter } : response.headers;
        operation.responses[status] = {
          description: errorDescription(status, response),
          ...(headers ? { headers } : {}),
          content: problemContent(),
        };
      }
    }
  }
  const components = document.components ?? {};
  components.schemas = { ...components.schemas, [problemSchemaName]: problemSchema };
  (document as Document).components = components;
  return document;
};
