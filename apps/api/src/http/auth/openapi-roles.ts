import type { RouteOptions } from 'fastify';
import type { RouteRole } from './route-roles.js';
import { problemContent } from '../problems/index.js';

const roleExtension = 'x-once-role';

interface Operation {
  description?: string;
  responses?: Record<string, unknown>;
  [roleExtension]?: RouteRole;
}

const forbidden = {
  description:
    'The API key’s role is below the one this operation needs (problem `forbidden`). Nothing was done.',
  content: problemContent(),
};

const roleSentence = (role: RouteRole): string =>
  role === 'public'
    ? 'No API key needed.'
    : `Needs an API key of role \`${role}\` or above (staff < operator < admin).`;

/**
 * Wraps an OpenAPI route transform so each operation carries the role its route declares (`x-once-role`); a public
 * operation needs no security scheme.
 *
 * @example
 * transform: withRouteRole(jsonSchemaTransform),
 */
export const withRouteRole =
  <Input extends { readonly route: RouteOptions }, Output extends { readonly schema: object }>(
    transform: (input: Input) => Output,
  ) =>
  (input: Input): Output => {
    const transformed = transform(input);
    const role = input.route.config?.role;
    if (role === undefined) return transformed;
    return {
      ...transformed,
      schema: {
        ...transformed.schema,
        [roleExtension]: role,
        ...(role === 'public' ? { security: [] } : {}),
      },
    };
  };

/**
 * Says in each operation's description which role it needs, and documents the 403 of every operation a staff key
 * may not call (from the `x-once-role` that `withRouteRole` set).
 *
 * @example
 * transformObject: (document) => documentRouteRoles(document),
 */
export const documentRouteRoles = <Document extends { paths?: unknown }>(document: Document): Document => {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      const role = typeof operation === 'object' && operation !== null ? operation[roleExtension] : undefined;
      if (role === undefined) continue;
      operation.description = [operation.description, roleSentence(role)].filter(Boolean).join('\n\n');
      if (role === 'operator' || role === 'admin')
        operation.responses = { ...operation.responses, '403': forbidden };
    }
  }
  return document;
};
