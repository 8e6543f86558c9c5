import type { RouteOptions } from 'fastify';
import type {} from '@once/idempotency/fastify';
import type {} from './consistency.plugin.js';
import { minPositionHeader, positionHeader, staleHeader } from './read-your-writes.js';

const writesExtension = 'x-once-writes';

interface Operation {
  parameters?: { name?: string; in?: string }[];
  responses?: Record<string, { headers?: Record<string, unknown> }>;
  [writesExtension]?: boolean;
}

/**
 * Wraps an OpenAPI route transform so each route whose answers carry `Once-Position` is marked `x-once-writes`: every
 * command route, and a route that declares `config: { writesPosition: true }`.
 *
 * @example
 * transform: withWritePosition(jsonSchemaTransform),
 */
export const withWritePosition =
  <Input extends { readonly route: RouteOptions }, Output extends { readonly schema: object }>(
    transform: (input: Input) => Output,
  ) =>
  (input: Input): Output => {
    const transformed = transform(input);
    const { config } = input.route;
    if (config?.idempotentCommand === undefined && config?.writesPosition !== true) return transformed;
    return { ...transformed, schema: { ...transformed.schema, [writesExtension]: true } };
  };

const positionDoc = {
  description:
    "Where this request's write sits in the global order of events (an opaque token). Sent when the request wrote " +
    '(whatever the status: a 503 after a partial effect has one too) and on replays, where it is the original ' +
    "write's. Give it back as `Once-Min-Position` on a GET to read the write back.",
  schema: { type: 'string', example: '00000000000000000767:00000000000000001234' },
};

const staleDoc = {
  description:
    '`true` when the read asked for `Once-Min-Position` and the read model had not reached it within the bound: the ' +
    'answer is what the read model has, which may not show that write yet (a 404 may mean "not projected yet").',
  schema: { type: 'string', enum: ['true'] },
};

const addHeader = (operation: Operation, name: string, doc: unknown, statuses?: readonly string[]): void => {
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (statuses && !statuses.includes(status)) continue;
    response.headers = { ...response.headers, [name]: doc };
  }
};

/**
 * Documents the consistency headers on the generated OpenAPI document (zod schemas describe bodies, not response
 * headers): `Once-Position` on every response of every operation marked by `withWritePosition`, `Once-Stale` on the
 * 200 and 404 of every GET that takes `Once-Min-Position`.
 *
 * @example
 * transformObject: ({ openapiObject }) => documentConsistencyHeaders(openapiObject),
 */
export const documentConsistencyHeaders = <Document extends { paths?: unknown }>(
  document: Document,
): Document => {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      if (typeof operation === 'object' && operation !== null && operation[writesExtension] === true)
        addHeader(operation, positionHeader, positionDoc);
    }
    const get = item['get'];
    if (
      get?.parameters?.some((parameter) => parameter.in === 'header' && parameter.name === minPositionHeader)
    ) {
      addHeader(get, staleHeader, staleDoc, ['200', '404']);
    }
  }
  return document;
};
