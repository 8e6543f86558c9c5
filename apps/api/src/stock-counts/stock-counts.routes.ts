import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { asStockCountId, asTenantId, stockCountDecider, stockCountStream } from '@once/domain';
import { readAggregate } from '../commands/aggregate-command.js';
import {
  commandProblems,
  emptyBody,
  idempotencyKeyHeader,
  problemView,
} from '../commands/command-schemas.js';
import { runKeyedCommand } from '../commands/keyed-command.js';
import { HttpProblem } from '../problems/problem.js';
import { recordCountLineBody, stockCountIdParams, stockCountView } from './stock-count.schemas.js';
import { toStockCountView } from './stock-count.view.js';

/** Stock counts: open, record counted lines, post (once), read. */
export const stockCountsRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['stock-counts'];
  app.post(
    '/',
    {
      schema: {
        summary: 'Open a stock count (its id is derived from the Idempotency-Key)',
        tags,
        headers: idempotencyKeyHeader,
        body: emptyBody,
        response: { 201: stockCountView, ...commandProblems },
      },
    },
    async (request, reply) => runKeyedCommand(request, reply),
  );

  app.post(
    '/:id/lines',
    {
      schema: {
        summary: 'Record a counted line (the same sku again replaces its line)',
        tags,
        headers: idempotencyKeyHeader,
        params: stockCountIdParams,
        body: recordCountLineBody,
        response: { 200: stockCountView, ...commandProblems },
      },
    },
    async (request, reply) => runKeyedCommand(request, reply),
  );

  app.post(
    '/:id/post',
    {
      schema: {
        summary: 'Post a stock count, exactly once',
        tags,
        headers: idempotencyKeyHeader,
        params: stockCountIdParams,
        body: emptyBody,
        response: { 200: stockCountView, ...commandProblems },
      },
    },
    async (request, reply) => runKeyedCommand(request, reply),
  );

  app.get(
    '/:id',
    {
      schema: {
        summary: 'A stock count',
        tags,
        params: stockCountIdParams,
        response: { 200: stockCountView, 404: problemView },
      },
    },
    async (request) => {
      const stream = stockCountStream(
        asTenantId(request.principal.tenantId),
        asStockCountId(request.params.id),
      );
      const view = toStockCountView(await readAggregate(app.eventStore, stockCountDecider, stream));
      if (!view) throw new HttpProblem('not-found', `no stock count ${request.params.id}`);
      return view;
    },
  );
};
