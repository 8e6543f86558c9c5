import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { asInvoiceId, asTenantId, invoiceDecider, invoiceStream } from '@once/domain';
import { commandProblems, idempotencyKeyHeader, problemView } from '../commands/command-schemas.js';
import { runKeyedCommand } from '../commands/keyed-command.js';
import { readAggregate } from '../commands/aggregate-command.js';
import { HttpProblem } from '../problems/problem.js';
import {
  invoiceIdParams,
  invoiceView,
  issueInvoiceBody,
  paymentView,
  recordPaymentBody,
} from './invoice.schemas.js';
import { toInvoiceView } from './invoice.view.js';

/** Invoices and their payments: `POST /invoices`, `GET /invoices/:id`, `POST /invoices/:id/payments`. */
export const invoicesRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/',
    {
      schema: {
        summary: 'Issue an invoice (its id is derived from the Idempotency-Key)',
        tags: ['invoices'],
        headers: idempotencyKeyHeader,
        body: issueInvoiceBody,
        response: { 201: invoiceView, ...commandProblems },
      },
    },
    async (request, reply) => runKeyedCommand(request, reply),
  );

  app.get(
    '/:id',
    {
      schema: {
        summary: 'An invoice with its balance and payments',
        tags: ['invoices'],
        params: invoiceIdParams,
        response: { 200: invoiceView, 404: problemView },
      },
    },
    async (request) => {
      const stream = invoiceStream(asTenantId(request.principal.tenantId), asInvoiceId(request.params.id));
      const state = await readAggregate(app.eventStore, invoiceDecider, stream);
      if (state.status === 'none') throw new HttpProblem('not-found', `no invoice ${request.params.id}`);
      return toInvoiceView(state);
    },
  );

  app.post(
    '/:id/payments',
    {
      schema: {
        summary: 'Pay an invoice: cash at once, or a card through the gateway (never above the balance)',
        tags: ['invoices'],
        headers: idempotencyKeyHeader,
        params: invoiceIdParams,
        body: recordPaymentBody,
        response: { 201: paymentView, 402: problemView, ...commandProblems },
      },
    },
    async (request, reply) => runKeyedCommand(request, reply),
  );
};
