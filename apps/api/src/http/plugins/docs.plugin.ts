import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { declarePublic, documentRouteRoles, withRouteRole } from '../auth/index.js';
import { documentConsistencyHeaders } from '../consistency/index.js';
import { documentRateLimits } from '../operations/openapi-rate-limits.js';
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

/**
 * The OpenAPI document generated from the routes' zod schemas (`/docs/json`), Swagger UI at `/docs`, and the
 * problem-type documentation every problem's `type` points at (`/problems`, `/problems/<type>`).
 */
export const docsPlugin = fp<{ catalog: ApiProblemCatalog; version: string }>(
  async (app, { catalog, version }) => {
    await app.register(swagger, {
      openapi: {
        info: {
          title: 'Once API',
          version,
          description:
            'Café operations with exactly-once effects. Every command (POST) needs an `Idempotency-Key` ' +
            '(8–255 visible ASCII characters, sf-string or bare). A retry with the same key and the same request gets ' +
            'the stored response (same status, byte-identical body, `Idempotent-Replayed: true`); the same key with a ' +
            'different request is 422. Keys are kept at least 24 hours. Errors are problem+json; see `/problems`. ' +
            'Reads (GET) come from read models, eventually consistent with the writes: a write answers ' +
            '`Once-Position`; a GET that sends it back as `Once-Min-Position` waits (bounded, 5 s by default) until ' +
            'the read model shows that write, or answers what it has with `Once-Stale: true`.',
        },
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
      transform: withRouteRole(jsonSchemaTransform),
      transformObject: (document) =>
        documentRouteRoles(documentRateLimits(documentConsistencyHeaders(document))),
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
