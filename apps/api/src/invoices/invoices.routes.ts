import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { asInvoiceId, asTenantId, invoiceDecider, invoiceStream } from '@once/domain';
import { runKeyedCommand } from '../commands/keyed-command.js';
import { foldSnapshot } from '../commands/aggregate-command.js';
import { HttpProblem } from '../problems/problem.js';
import { cardPaymentHandler, cashPaymentHandler, issueInvoiceHandler } from './invoice.handlers.js';
import {
  invoiceIdParams,
  invoiceView,
  issueInvoiceBody,
  paymentView,
  problemView,
  recordPaymentBody,
} from './invoice.schemas.js';
import { toInvoiceView } from './invoice.view.js';

const idempotencyKeyHeader = z.object({
  'idempotency-key': z
    .string()
    .optional()
    .describe('One key per intent (8–255 visible ASCII, sf-string or bare); required. Retries reuse it.'),
});

const commandProblems = { 400: problemView, 401: problemView, 404: problemView, 409: problemView, 422: problemView, 503: problemView };

/** Invoices and their payments: `POST /invoices`, `GET /invoices/:id`, `POST /invoices/:id/payments`. */
export const invoicesRoutes: FastifyPluginAsyncZod = async (app) => {
  const cardPayment = cardPaymentHandler({ gateway: app.gateway, faultPoint: app.faultPoint });

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
    async (request, reply) => runKeyedCommand(request, reply, issueInvoiceHandler),
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
      const events = await app.eventStore.readStream(stream);
      const state = foldSnapshot(invoiceDecider, { stream, events, revision: 'no_stream' });
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
    async (request, reply) =>
      runKeyedCommand(request, reply, request.body.method === 'card' ? cardPayment : cashPaymentHandler),
  );
};
