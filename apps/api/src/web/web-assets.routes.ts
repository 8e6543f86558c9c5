import helmet from '@fastify/helmet';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HttpProblem } from '@once/cafe';

const contentTypes: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  map: 'application/json; charset=utf-8',
};

/**
 * What the pages may load: their own scripts, styles and API calls (same origin), the empty data: icon, nothing
 * inline, nothing from elsewhere, and no page may frame them (clickjacking of a signed-in till).
 */
export const webContentSecurityPolicy = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
} as const;

/** File names the built till may hold: no directories, nothing hidden. */
const assetParams = z.strictObject({ file: z.string().regex(/^[a-z0-9-]+(\.js)?\.(html|js|css|map)$/) });

/**
 * Serves the built till and console (apps/till's `dist/`): the pages at `/till` and `/console`, their scripts and
 * styles under `/web/`. Unauthenticated like any static page: the pages ask for an API key and send it with each call.
 * Every answer carries helmet's headers with a strict Content-Security-Policy, `X-Frame-Options: DENY` and
 * `X-Content-Type-Options: nosniff`.
 */
export const webAssetsRoutes: FastifyPluginAsyncZod<{ directory: string }> = async (app, { directory }) => {
  // Registered in this plugin's own scope: the headers are the pages', not the JSON api's.
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: webContentSecurityPolicy },
    frameguard: { action: 'deny' },
    // The pages are served over plain http on loopback by the embedded default; TLS is the proxy's to announce.
    strictTransportSecurity: false,
  });
  const send = async (file: string, reply: FastifyReply) => {
    let body: Buffer;
    try {
      body = await readFile(join(directory, file));
    } catch {
      throw new HttpProblem('not-found', { detail: `${file} is not built (npm run bundle -w @once/till)` });
    }
    const extension = file.slice(file.lastIndexOf('.') + 1);
    return reply
      .type(contentTypes[extension] ?? 'text/plain')
      .header('cache-control', 'no-cache')
      .send(body);
  };
  app.get('/till', { config: { role: 'public' }, schema: { hide: true } }, async (_request, reply) =>
    send('till.html', reply),
  );
  app.get('/console', { config: { role: 'public' }, schema: { hide: true } }, async (_request, reply) =>
    send('console.html', reply),
  );
  app.get(
    '/web/:file',
    { config: { role: 'public' }, schema: { hide: true, params: assetParams } },
    async (request, reply) => send(request.params.file, reply),
  );
};
