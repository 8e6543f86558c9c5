import type { RouteOptions } from 'fastify';
import type {} from '@once/idempotency/fastify';

/** The extension that marks a command operation (a route that runs its command under an `Idempotency-Key`). */
export const commandExtension = 'x-once-command';

const keyHeader = 'idempotency-key';

const keyHeaderSchema = {
  type: 'string',
  minLength: 8,
  maxLength: 255,
  description: 'One key per intent (8–255 visible ASCII, sf-string or bare); every retry reuses it.',
};

interface HeadersSchema {
  type?: string;
  properties?: Record<string, unknown>;
  required?: string[];
}

interface Response {
  headers?: Record<string, unknown>;
}

interface Operation {
  responses?: Record<string, Response>;
  [commandExtension]?: boolean;
}

const requireKeyHeader = (headers: HeadersSchema | undefined): HeadersSchema => ({
  ...headers,
  type: 'object',
  properties: { ...headers?.properties, [keyHeader]: headers?.properties?.[keyHeader] ?? keyHeaderSchema },
  required: [...new Set([...(headers?.required ?? []), keyHeader])],
});

/**
 * Wraps an OpenAPI route transform so each command route (one `app.command` declared) is marked `x-once-command` and
 * declares `Idempotency-Key` as a required header, whatever its own header schema says (the idempotency plugin, not
 * the schema, refuses a request without one, with its own problem).
 *
 * @example
 * transform: withCommandContract(jsonSchemaTransform),
 */
export const withCommandContract =
  <Input extends { readonly route: RouteOptions }, Output extends { readonly schema: object }>(
    transform: (input: Input) => Output,
  ) =>
  (input: Input): Output => {
    const transformed = transform(input);
    if (input.route.config?.idempotentCommand === undefined) return transformed;
    const schema = transformed.schema as { headers?: HeadersSchema };
    return {
      ...transformed,
      schema: { ...transformed.schema, [commandExtension]: true, headers: requireKeyHeader(schema.headers) },
    };
  };

const replayedDoc = {
  description:
    '`true` when this is the stored answer of an earlier request with the same key and the same request, replayed ' +
    'byte for byte (the command did not run again). Absent on a first execution.',
  schema: { type: 'string', enum: ['true'] },
};

const retryAfterDoc = {
  description:
    'Seconds to wait before retrying with the same key (the first request with this key is still running).',
  schema: { type: 'integer', minimum: 0 },
};

const locationDoc = {
  description: 'Where the resource the command created is read.',
  schema: { type: 'string', format: 'uri-reference' },
};

// Refused before the key is read or claimed (malformed, unauthenticated, forbidden, limited) or never stored (503):
// such answers are never a replay.
const neverReplayed = new Set(['400', '401', '403', '413', '415', '429', '500', '503']);

/**
 * Documents what every command answer may carry (zod schemas describe bodies, not response headers):
 * `Idempotent-Replayed` on each answer that can be a stored one, `Location` on a 201 (every command that creates
 * answers where to read it), and `Retry-After` on the 409 of a key in flight.
 *
 * @example
 * transformObject: (document) => documentCommands(document.openapiObject),
 */
export const documentCommands = <Document extends { paths?: unknown }>(document: Document): Document => {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      if (typeof operation !== 'object' || operation === null || operation[commandExtension] !== true)
        continue;
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (!neverReplayed.has(status))
          response.headers = { ...response.headers, 'Idempotent-Replayed': replayedDoc };
        if (status === '201') response.headers = { ...response.headers, Location: locationDoc };
        if (status === '409') response.headers = { ...response.headers, 'Retry-After': retryAfterDoc };
      }
    }
  }
  return document;
};
