import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { getInvoice } from '@once/read-models';
import { commandProblems, idempotencyKeyHeader, problemView } from '../http/commands/command-schemas.js';
import { readConsistencyHeaders, readModelDescription, readYourWrites } from '../http/consistency/index.js';
import {
  HttpProblem,
  invoiceIdParams,
  invoiceView,
  issueInvoice,
  issueInvoiceBody,
  payInvoiceByCard,
  payInvoiceByCash,
  paymentView,
  recordPaymentBody,
} from '@once/cafe';

/** Invoices and their payments: `POST /invoices`, `GET /invoices/:id`, `POST /invoices/:id/payments`. */
export const invoicesRoutes: FastifyPluginAsyncZod = async (app) => {
  app.command({
    url: '/',
    config: { role: 'staff' },
    schema: {
      operationId: 'issueInvoice',
      summary: 'Issue an invoice (its id is derived from the Idempotency-Key)',
      tags: ['invoices'],
      headers: idempotencyKeyHeader,
      body: issueInvoiceBody,
      response: { 201: invoiceView, ...commandProblems },
    },
    command: issueInvoice,
  });

  app.get(
    '/:id',
    {
      config: { role: 'staff' },
      schema: {
        operationId: 'getInvoice',
        summary: 'An invoice with its balance and payments',
        description: readModelDescription('The invoice and its payments in the order they were made.'),
        tags: ['invoices'],
        headers: readConsistencyHeaders,
        params: invoiceIdParams,
        response: { 200: invoiceView, 400: problemView, 404: problemView, 503: problemView },
      },
    },
    async (request, reply) => {
      const { tenantId } = request.principal;
      const invoice = await readYourWrites(request, reply, 'invoices', () =>
        getInvoice(app.pg, tenantId, request.params.id),
      );
      if (!invoice) throw new HttpProblem('not-found', { detail: `no invoice ${request.params.id}` });
      return { ...invoice, payments: [...invoice.payments] };
    },
  );

  app.command({
    url: '/:id/payments',
    config: { role: 'staff' },
    schema: {
      operationId: 'payInvoice',
      summary: 'Pay an invoice: cash at once, or a card through the gateway (never above the balance)',
      tags: ['invoices'],
      headers: idempotencyKeyHeader,
      params: invoiceIdParams,
      body: recordPaymentBody,
      response: { 201: paymentView, 402: problemView, 424: problemView, ...commandProblems },
    },
    command: [payInvoiceByCash, payInvoiceByCard],
  });
};
