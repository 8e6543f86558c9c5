import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { getStockCount } from '@once/read-models';
import { commandProblems, idempotencyKeyHeader, problemView } from '../http/commands/command-schemas.js';
import { readConsistencyHeaders, readModelDescription, readYourWrites } from '../http/consistency/index.js';
import {
  emptyBody,
  HttpProblem,
  openStockCount,
  postStockCount,
  recordCountLine,
  recordCountLineBody,
  stockCountIdParams,
  stockCountView,
} from '@once/cafe';

/** Stock counts: open, record counted lines, post (once), read. */
export const stockCountsRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['stock-counts'];
  app.command({
    url: '/',
    config: { role: 'staff' },
    schema: {
      operationId: 'openStockCount',
      summary: 'Open a stock count (its id is derived from the Idempotency-Key)',
      tags,
      headers: idempotencyKeyHeader,
      body: emptyBody,
      response: { 201: stockCountView, ...commandProblems },
    },
    command: openStockCount,
  });

  app.command({
    url: '/:id/lines',
    config: { role: 'staff' },
    schema: {
      operationId: 'recordStockCountLine',
      summary: 'Record a counted line (the same sku again replaces its line)',
      tags,
      headers: idempotencyKeyHeader,
      params: stockCountIdParams,
      body: recordCountLineBody,
      response: { 200: stockCountView, ...commandProblems },
    },
    command: recordCountLine,
  });

  app.command({
    url: '/:id/post',
    config: { role: 'staff' },
    schema: {
      operationId: 'postStockCount',
      summary: 'Post a stock count, exactly once',
      tags,
      headers: idempotencyKeyHeader,
      params: stockCountIdParams,
      body: emptyBody,
      response: { 200: stockCountView, ...commandProblems },
    },
    command: postStockCount,
  });

  app.get(
    '/:id',
    {
      config: { role: 'staff' },
      schema: {
        operationId: 'getStockCount',
        summary: 'A stock count',
        description: readModelDescription('The count with its lines in counting order.'),
        tags,
        headers: readConsistencyHeaders,
        params: stockCountIdParams,
        response: { 200: stockCountView, 400: problemView, 404: problemView, 503: problemView },
      },
    },
    async (request, reply) => {
      const { tenantId } = request.principal;
      const count = await readYourWrites(request, reply, 'stock_counts', () =>
        getStockCount(app.pg, tenantId, request.params.id),
      );
      if (!count) throw new HttpProblem('not-found', { detail: `no stock count ${request.params.id}` });
      return { ...count, lines: [...count.lines] };
    },
  );
};
