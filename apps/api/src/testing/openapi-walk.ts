/** A response of the served OpenAPI document, as far as the contract tests read it. */
export interface OpenApiResponse {
  readonly description?: string;
  readonly headers?: Readonly<Record<string, unknown>>;
  readonly content?: Readonly<Record<string, { readonly schema?: unknown }>>;
}

/** An operation of the served OpenAPI document, as far as the contract tests read it. */
export interface OpenApiOperation {
  readonly operationId?: string;
  readonly parameters?: readonly {
    readonly name: string;
    readonly in: string;
    readonly required?: boolean;
  }[];
  readonly responses: Readonly<Record<string, OpenApiResponse>>;
  readonly 'x-once-command'?: boolean;
}

/** The served OpenAPI document, as far as the contract tests read it. */
export interface OpenApi {
  readonly info: { readonly version: string };
  readonly paths: Readonly<Record<string, Readonly<Record<string, OpenApiOperation>>>>;
  readonly components: { readonly schemas: Readonly<Record<string, unknown>> };
}

const methods = new Set(['get', 'head', 'post', 'put', 'patch', 'delete', 'options']);

/**
 * Every operation of the document with its method and path, named `<method> <path>` for assertion messages.
 *
 * @example
 * for (const { name, operation } of operationsOf(document)) expect(operation.operationId, name).toBeDefined();
 */
export const operationsOf = (
  document: OpenApi,
): { name: string; method: string; path: string; operation: OpenApiOperation }[] =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => methods.has(method))
      .map(([method, operation]) => ({ name: `${method} ${path}`, method, path, operation })),
  );

/**
 * The declaration of a response header, whatever the case of its name (HTTP header names are case-insensitive).
 *
 * @example
 * expect(headerNamed(operation.responses['201'], 'Idempotent-Replayed')).toBeDefined();
 */
export const headerNamed = (response: OpenApiResponse | undefined, name: string): unknown =>
  Object.entries(response?.headers ?? {}).find(
    ([header]) => header.toLowerCase() === name.toLowerCase(),
  )?.[1];
