import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { declarePublic, documentRouteRoles, withRouteRole } from '../auth/index.js';
import { documentCommands, withCommandContract } from '../commands/openapi-commands.js';
import { documentConsistencyHeaders, withWritePosition } from '../consistency/index.js';
import { documentRateLimits } from '../operations/openapi-rate-limits.js';
import type { RateLimitSettings } from '../operations/rate-limits.js';
import { documentProblemResponses } from '../problems/index.js';
import { HttpProblem } from '@once/cafe';
import type { ApiProblemCatalog } from '@once/cafe';

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

const problemsPage = (catalog: ApiProblemCatalog): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Once API problem types</title></head>
<body><h1>Problem types</h1>
<p>Every error is <code>application/problem+json</code> (RFC 9457) whose <code>type</code> is one of these URIs.
Problems decided after a keyed command began (business rules) are stored with the key and replayed; the others
store nothing.</p>
${catalog
  .entries()
  .map(
    ([type, problem]) =>
      `<section id="${escapeHtml(type)}"><h2><a href="/problems/${escapeHtml(type)}">/problems/${escapeHtml(type)}</a></h2>
<p><strong>${problem.status}</strong> ${escapeHtml(problem.title)}</p><p>${escapeHtml(problem.description)}</p></section>`,
  )
  .join('\n')}
</body></html>`;

// Fastify serves a prefixed `/` route at both `/invoices` and `/invoices/`: the document names it once, without the
// slash, so each operation (and its operationId) appears once.
const withoutTrailingSlashTwins = <Document extends { paths?: unknown }>(document: Document): Document => {
  const paths = (document.paths ?? {}) as Record<string, unknown>;
  for (const path of Object.keys(paths)) {
    if (path.length < 2 || !path.endsWith('/')) continue;
    const twin = path.slice(0, -1);
    if (!(twin in paths)) paths[twin] = paths[path];
    Reflect.deleteProperty(paths, path);
  }
  return document;
};

export interface DocsOptions {
  /** Every problem the api answers with, served at `/problems`. */
  readonly catalog: ApiProblemCatalog;
  /** The document's `info.version`: the api package's version. */
  readonly version: string;
  /** The rate limits the api runs with, declared on every operation; none when omitted. */
  readonly rateLimits?: RateLimitSettings | undefined;
}

/**
 * The OpenAPI document generated from the routes' zod schemas (`/docs/json`), Swagger UI at `/docs`, and the
 * problem-type documentation every problem's `type` points at (`/problems`, `/problems/<type>`). Each operation has
 * its route's `operationId`; a command requires `Idempotency-Key`; the headers answers carry are declared on them;
 * every error answer is `application/problem+json` with the shared `Problem` schema.
 */
export const docsPlugin = fp<DocsOptions>(
  async (app, { catalog, version, rateLimits }) => {
    await app.register(swagger, {
      openapi: {
        info: {
          title: 'Once API',
          version,
          license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
          description:
            'Café operations with exactly-once effects. Every command (an operation marked `x-once-command`) ' +
            'requires an `Idempotency-Key` (8–255 visible ASCII characters, sf-string or bare). A retry with the same key and the same request gets ' +
            'the stored response (same status, byte-identical body, `Idempotent-Replayed: true`); the same key with a ' +
            'different request is 422. Keys are kept at least 24 hours; the same key after that, where its effect is ' +
            'recorded, is 422 `idempotency-key-expired` (never retried into a second effect). Errors are problem+json; see `/problems`. ' +
            'Reads (GET) come from read models, eventually consistent with the writes: a write answers ' +
            '`Once-Position`; a GET that sends it back as `Once-Min-Position` waits (bounded, 5 s by default) until ' +
            'the read model shows that write, or answers what it has with `Once-Stale: true`.',
        },
        // Relative: the api is wherever this document was served from.
        servers: [{ url: '/', description: 'The api serving this document' }],
        components: {
          securitySchemes: {
            apiKey: {
              type: 'http',
              scheme: 'bearer',
              description: 'An API key from `npm run keys -- create`',
            },
          },
        },
        security: [{ apiKey: [] }],
      },
      transform: withRouteRole(withCommandContract(withWritePosition(jsonSchemaTransform))),
      transformObject: (document) => {
        if (!('openapiObject' in document)) return document.swaggerObject;
        const documented = documentCommands(
          documentConsistencyHeaders(withoutTrailingSlashTwins(document.openapiObject)),
        );
        return documentProblemResponses(documentRateLimits(documentRouteRoles(documented), rateLimits));
      },
    });
    // Swagger UI's pages cannot declare a role themselves: its own scope declares them public.
    await app.register(async (docs) => {
      docs.addHook('onRoute', declarePublic());
      await docs.register(swaggerUi, { routePrefix: '/docs' });
    });

    const page = problemsPage(catalog);
    app.get('/problems', { config: { role: 'public' }, schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/html').send(page),
    );
    app.withTypeProvider<ZodTypeProvider>().get(
      '/problems/:type',
      {
        config: { role: 'public' },
        schema: { hide: true, params: z.strictObject({ type: z.string().max(100) }) },
      },
      async (request, reply) => {
        const { type } = request.params;
        if (!catalog.has(type)) throw new HttpProblem('not-found', { detail: `no problem type ${type}` });
        const { status, title, description } = catalog.describe(type);
        return reply.send({ type: catalog.uri(type), status, title, description });
      },
    );
  },
  { name: 'once-docs', fastify: '5.x' },
);
