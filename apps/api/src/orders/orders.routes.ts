import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { getOrder } from '@once/read-models';
import { commandProblems, idempotencyKeyHeader, problemView } from '../http/commands/command-schemas.js';
import { readConsistencyHeaders, readModelDescription, readYourWrites } from '../http/consistency/index.js';
import {
  approveOrder,
  completeOrder,
  emptyBody,
  HttpProblem,
  orderIdParams,
  orderView,
  placeOrder,
  placeOrderBody,
  serveOrder,
} from '@once/cafe';

/** Orders: place, approve (held for review), serve, complete (the sale, once), read. */
export const ordersRoutes: FastifyPluginAsyncZod = async (app) => {
  app.command({
    url: '/',
    config: { role: 'staff' },
    schema: {
      operationId: 'placeOrder',
      summary: 'Place an order (its id is derived from the Idempotency-Key)',
      description:
        'Tills may queue orders offline and send them hours later: keys of this route are kept 7 days (24 hours ' +
        'elsewhere). `expectedTotal` is the total the till showed; if prices changed meanwhile the order is held for review.',
      tags: ['orders'],
      headers: idempotencyKeyHeader,
      body: placeOrderBody,
      response: { 201: orderView, ...commandProblems },
    },
    command: placeOrder,
  });

  app.command({
    url: '/:id/approve',
    config: { role: 'staff' },
    schema: {
      operationId: 'approveOrder',
      summary: 'Accept the current total of an order held for review',
      description:
        'An order whose `expectedTotal` differed from its total at current prices is `held`; approving it makes it ' +
        '`placed` at the current total, ready to serve.',
      tags: ['orders'],
      headers: idempotencyKeyHeader,
      params: orderIdParams,
      body: emptyBody,
      response: { 200: orderView, ...commandProblems },
    },
    command: approveOrder,
  });

  app.command({
    url: '/:id/serve',
    config: { role: 'staff' },
    schema: {
      operationId: 'serveOrder',
      summary: 'Mark an order served',
      tags: ['orders'],
      headers: idempotencyKeyHeader,
      params: orderIdParams,
      body: emptyBody,
      response: { 200: orderView, ...commandProblems },
    },
    command: serveOrder,
  });

  app.command({
    url: '/:id/complete',
    config: { role: 'staff' },
    schema: {
      operationId: 'completeOrder',
      summary: 'Complete a served order: it becomes a sale, exactly once',
      tags: ['orders'],
      headers: idempotencyKeyHeader,
      params: orderIdParams,
      body: emptyBody,
      response: { 200: orderView, ...commandProblems },
    },
    command: completeOrder,
  });

  app.get(
    '/:id',
    {
      config: { role: 'staff' },
      schema: {
        operationId: 'getOrder',
        summary: 'An order',
        description: readModelDescription('The order, with its sale once completed.'),
        tags: ['orders'],
        headers: readConsistencyHeaders,
        params: orderIdParams,
        response: { 200: orderView, 400: problemView, 404: problemView, 503: problemView },
      },
    },
    async (request, reply) => {
      const { tenantId } = request.principal;
      const order = await readYourWrites(request, reply, 'orders', () =>
        getOrder(app.pg, tenantId, request.params.id),
      );
      if (!order) throw new HttpProblem('not-found', { detail: `no order ${request.params.id}` });
      return { ...order, lines: [...order.lines] };
    },
  );
};
