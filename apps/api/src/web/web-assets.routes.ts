import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HttpProblem } from '../problems/index.js';

const contentTypes: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  map: 'application/json; charset=utf-8',
};

/** File names the built till may hold: no directories, nothing hidden. */
const assetParams = z.strictObject({ file: z.string().regex(/^[a-z0-9-]+(\.js)?\.(html|js|css|map)$/) });

/**
 * Serves the built till and console (apps/till's `dist/`): the pages at `/till` and `/console`, their scripts and
 * styles under `/web/`. Unauthenticated like any static page: the pages ask for an API key and send it with each call.
 */
export const webAssetsRoutes: FastifyPluginAsyncZod<{ directory: string }> = async (app, { directory }) => {
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
