import { Gauge } from 'prom-client';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { countPaymentsNeedingAttention, getPayment, listPaymentsNeedingAttention } from '@once/read-models';
import { commandProblems, idempotencyKeyHeader, problemView } from '../http/commands/command-schemas.js';
import { readConsistencyHeaders, readModelDescription, readYourWrites } from '../http/consistency/index.js';
import {
  HttpProblem,
  paymentIdParams,
  paymentsNeedingAttentionList,
  paymentView,
  resolveCardPayment,
  resolvePaymentBody,
} from '@once/cafe';

/**
 * `GET /payments/:id`; card payments that need attention (`GET /payments/needing-attention`, and the gauge
 * `once_card_payments_needing_attention`); an operator's resolution (`POST /payments/:id/resolve`).
 */
export const paymentsRoutes: FastifyPluginAsyncZod = async (app) => {
  new Gauge({
    name: 'once_card_payments_needing_attention',
    help: 'Card payments whose gateway outcome stayed unknown through every attempt: an operator must resolve them',
    registers: [app.metricsRegistry],
    async collect() {
      // Until the projector has made the read model live there is nothing to count, and /metrics must still answer.
      try {
        this.set(await countPaymentsNeedingAttention(app.pg));
      } catch (error) {
        app.log.debug({ err: error }, 'card payments needing attention not counted');
      }
    },
  });

  app.get(
    '/needing-attention',
    {
      config: { role: 'staff' },
      schema: {
        operationId: 'listPaymentsNeedingAttention',
        summary: 'Card payments that need an operator',
        description: readModelDescription(
          "Your tenant's card payments whose gateway outcome stayed unknown through every attempt the completer " +
            'makes, oldest first (at most 100). Their amounts stay reserved until an operator resolves them with ' +
            '`POST /payments/:id/resolve`.',
        ),
        tags: ['invoices'],
        headers: readConsistencyHeaders,
        response: { 200: paymentsNeedingAttentionList, 400: problemView, 401: problemView, 503: problemView },
      },
    },
    async (request, reply) => {
      const { tenantId } = request.principal;
      const payments = await readYourWrites(request, reply, 'card_settlements', () =>
        listPaymentsNeedingAttention(app.pg, tenantId),
      );
      return { payments: [...payments] };
    },
  );

  app.get(
    '/:id',
    {
      config: { role: 'staff' },
      schema: {
        operationId: 'getPayment',
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

  app.command({
    url: '/:id/resolve',
    config: { role: 'operator' },
    schema: {
      operationId: 'resolvePayment',
      summary: 'Resolve a card payment that needs attention (operator keys)',
      description:
        '`inquire` asks the gateway again: a charge it has is captured, none releases the amount; `mark-declined` ' +
        'releases the amount at once. Only a payment the completer gave up on can be resolved (409 otherwise).',
      tags: ['invoices'],
      headers: idempotencyKeyHeader,
      params: paymentIdParams,
      body: resolvePaymentBody,
      response: { 200: paymentView, ...commandProblems },
    },
    command: resolveCardPayment,
  });
};
