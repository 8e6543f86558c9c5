/** The slice of JSON Schema the api's OpenAPI document uses. */
interface Schema {
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly anyOf?: readonly Schema[];
  readonly oneOf?: readonly Schema[];
  readonly allOf?: readonly Schema[];
  readonly items?: Schema;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | Schema;
  readonly nullable?: boolean;
  readonly default?: unknown;
}

interface Operation {
  readonly summary?: string;
  readonly parameters?: readonly { readonly name: string; readonly in: string }[];
  readonly requestBody?: { readonly content?: Readonly<Record<string, { readonly schema?: Schema }>> };
  readonly responses?: Readonly<
    Record<string, { readonly content?: Readonly<Record<string, { readonly schema?: Schema }>> }>
  >;
}

/** An OpenAPI 3 document, as far as the route types need it. */
export interface OpenApiDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
}

/** `input`: what a caller sends (a field with a default may be left out); `output`: what the api answers. */
type Direction = 'input' | 'output';

const propertyName = (name: string): string =>
  /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);

const union = (members: readonly string[]): string => {
  const distinct = [...new Set(members)];
  return distinct.length === 1
    ? (distinct[0] as string)
    : distinct.map((member) => `(${member})`).join(' | ');
};

const objectType = (schema: Schema, direction: Direction): string => {
  const properties = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  if (properties.length === 0) {
    return schema.additionalProperties === false ? 'Record<string, never>' : 'Record<string, unknown>';
  }
  const fields = properties.map(([name, property]) => {
    const optional = !required.has(name) || (direction === 'input' && property.default !== undefined);
    return `readonly ${propertyName(name)}${optional ? '?' : ''}: ${typeScriptType(property, direction)};`;
  });
  return `{ ${fields.join(' ')} }`;
};

/** The TypeScript type of a JSON Schema, as one line of text. */
export const typeScriptType = (schema: Schema, direction: Direction): string => {
  const alternatives = schema.anyOf ?? schema.oneOf;
  const base = alternatives
    ? union(alternatives.map((alternative) => typeScriptType(alternative, direction)))
    : schema.allOf
      ? schema.allOf.map((part) => `(${typeScriptType(part, direction)})`).join(' & ')
      : schema.const !== undefined
        ? JSON.stringify(schema.const)
        : schema.enum
          ? union(schema.enum.map((value) => JSON.stringify(value)))
          : union(
              (Array.isArray(schema.type) ? schema.type : [schema.type ?? 'unknown']).map((type: string) => {
                switch (type) {
                  case 'string':
                    return 'string';
                  case 'integer':
                  case 'number':
                    return 'number';
                  case 'boolean':
                    return 'boolean';
                  case 'null':
                    return 'null';
                  case 'array':
                    return `readonly (${typeScriptType(schema.items ?? {}, direction)})[]`;
                  case 'object':
                    return objectType(schema, direction);
                  default:
                    return 'unknown';
                }
              }),
            );
  return schema.nullable === true ? `${base} | null` : base;
};

const jsonSchemaOf = (content: Readonly<Record<string, { readonly schema?: Schema }>> | undefined) =>
  content?.['application/json']?.schema;

interface CommandRoute {
  readonly name: string;
  readonly summary: string | undefined;
  readonly params: readonly string[];
  readonly body: string;
  readonly response: string;
}

const commandRoutes = (document: OpenApiDocument): CommandRoute[] =>
  Object.entries(document.paths)
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([path, operations]) => {
      const operation = operations['post'];
      if (!operation?.parameters?.some((parameter) => parameter.name === 'idempotency-key')) return [];
      const success = Object.entries(operation.responses ?? {})
        .filter(([status]) => /^2\d\d$/.test(status))
        .sort(([a], [b]) => a.localeCompare(b))[0]?.[1];
      const body = jsonSchemaOf(operation.requestBody?.content);
      const response = jsonSchemaOf(success?.content);
      return [
        {
          name: `POST ${path.replace(/(.)\/$/, '$1')}`,
          summary: operation.summary,
          params: operation.parameters
            .filter((parameter) => parameter.in === 'path')
            .map((parameter) => parameter.name),
          body: body ? typeScriptType(body, 'input') : 'undefined',
          response: response ? typeScriptType(response, 'output') : 'unknown',
        },
      ];
    });

const pathSegments = (route: string): string[] =>
  (route.split(' ')[1] ?? route).split('/').filter((segment) => segment !== '' && !segment.startsWith('{'));

/**
 * The resource an answer shared by several routes is: the first segment of the first route's path that every one of
 * them names (`POST /invoices/{id}/payments` and `POST /payments/{id}/resolve` -> `OncePayment`), else the first.
 *
 * @example
 * resourceTypeName(['POST /stock-counts/{id}/post', 'POST /stock-counts']); // 'OnceStockCount'
 */
const resourceTypeName = (routes: readonly string[]): string => {
  const [first = ''] = routes;
  const candidates = pathSegments(first);
  const resource =
    candidates.find((segment) => routes.every((route) => pathSegments(route).includes(segment))) ??
    candidates[0] ??
    '';
  return `Once${resource
    .replace(/s$/, '')
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}`;
};

/**
 * The source of `libs/client/src/once-api/once-routes.generated.ts`: every command route of the api (a POST that
 * takes an `Idempotency-Key`) with its path parameters, body and success body, from the api's OpenAPI document.
 * An answer several routes share (a resource) is written once, as an interface named after the resource.
 */
export const clientRouteTypesSource = (document: OpenApiDocument): string => {
  const routes = commandRoutes(document);
  const shared = new Map<string, string>();
  for (const route of routes) {
    const sharing = routes.filter((other) => other.response === route.response);
    if (sharing.length > 1 && route.response.startsWith('{') && !shared.has(route.response)) {
      shared.set(route.response, resourceTypeName(sharing.map((other) => other.name)));
    }
  }
  const resources = [...shared].map(([type, name]) => {
    const users = routes.filter((route) => route.response === type).map((route) => route.name);
    return [`/** The answer of ${users.join(', ')}. */`, `export interface ${name} ${type}`, ''].join('\n');
  });
  const entries = routes.map((route) =>
    [
      ...(route.summary ? [`  /** ${route.summary} */`] : []),
      `  '${route.name}': {`,
      `    readonly params: ${route.params.length === 0 ? 'Record<string, never>' : `{ ${route.params.map((name) => `readonly ${propertyName(name)}: string;`).join(' ')} }`};`,
      `    readonly body: ${route.body};`,
      `    readonly response: ${shared.get(route.response) ?? route.response};`,
      '  };',
    ].join('\n'),
  );
  return [
    "// Generated from the api's OpenAPI document (GET /docs/json): do not edit. After changing a command route,",
    '// `npx vitest run apps/api/src/client-contract --update` writes it again (CI fails while it differs from the api).',
    '',
    ...resources,
    '/** Every command route of the Once api (a POST with an Idempotency-Key): path parameters, body, success body. */',
    'export interface OnceCommandRoutes {',
    entries.join('\n'),
    '}',
    '',
  ].join('\n');
};
