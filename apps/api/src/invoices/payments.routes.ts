import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { getPayment } from '@once/read-models';
import { problemView } from '../commands/command-schemas.js';
import { readConsistencyHeaders, readModelDescription, readYourWrites } from '../consistency/index.js';
import { HttpProblem } from '../problems/index.js';
import { paymentIdParams, paymentView } from './invoice.schemas.js';

/** `GET /payments/:id`: one payment of the caller's tenant, from the payments read model. */
export const paymentsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/:id',
    {
      schema: {
        summary: 'A payment',
        description: readModelDescription('One payment, with the invoice it pays.'),
        tags: ['invoices'],
        headers: readConsistencyHeaders,
        params: paymentIdParams,
        response: { 200: paymentView, 400: problemView, 404: problemView, 503: problemView },
      },
    },
    async (request, reply) => {
      const { tenantId } = request.principal;
      const payment = await readYourWrites(request, reply, 'invoices', () =>
        getPayment(app.pg, tenantId, request.params.id),
      );
      if (!payment) throw new HttpProblem('not-found', { detail: `no payment ${request.params.id}` });
      return payment;
    },
  );
};
