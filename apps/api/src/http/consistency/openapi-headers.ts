import type { SwaggerTransformObject } from '@fastify/swagger';
import { minPositionHeader, positionHeader, staleHeader } from './read-your-writes.js';

interface Operation {
  parameters?: { name?: string; in?: string }[];
  responses?: Record<string, { headers?: Record<string, unknown> }>;
}

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
 * headers): `Once-Position` on every response of every POST, `Once-Stale` on the 200 and 404 of every GET that takes
 * `Once-Min-Position`.
 *
 * @example
 * await app.register(swagger, { openapi, transform: jsonSchemaTransform, transformObject: documentConsistencyHeaders });
 */
export const documentConsistencyHeaders: SwaggerTransformObject = (document) => {
  if (!('openapiObject' in document)) return document.swaggerObject;
  const paths = (document.openapiObject.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const item of Object.values(paths)) {
    const post = item['post'];
    if (post) addHeader(post, positionHeader, positionDoc);
    const get = item['get'];
    if (
      get?.parameters?.some((parameter) => parameter.in === 'header' && parameter.name === minPositionHeader)
    ) {
      addHeader(get, staleHeader, staleDoc, ['200', '404']);
    }
  }
  return document.openapiObject;
};
