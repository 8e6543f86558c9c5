import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { asInvoiceId, asPaymentId, asTenantId, invoiceDecider, invoiceStream } from '@once/domain';
import { getPayment } from '@once/projections';
import { readAggregate } from '../commands/aggregate-command.js';
import { problemView } from '../commands/command-schemas.js';
import { HttpProblem } from '../problems/problem.js';
import { paymentIdParams, paymentView } from './invoice.schemas.js';
import { toPaymentView } from './invoice.view.js';

/**
 * `GET /payments/:id`: the payments read model says which invoice holds the payment; the invoice stream says where
 * the payment stands now (the read model may lag a moment behind a write, the stream never does).
 */
export const paymentsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/:id',
    {
      schema: {
        summary: 'A payment (found through the payments read model, so it appears a moment after it is made)',
        tags: ['invoices'],
        params: paymentIdParams,
        response: { 200: paymentView, 404: problemView },
      },
    },
    async (request) => {
      const tenantId = asTenantId(request.principal.tenantId);
      const paymentId = asPaymentId(request.params.id);
      const row = await getPayment(app.pg, tenantId, paymentId);
      const state = row
        ? await readAggregate(
            app.eventStore,
            invoiceDecider,
            invoiceStream(tenantId, asInvoiceId(row.invoiceId)),
          )
        : undefined;
      const payment = state?.status === 'issued' ? state.payments.get(paymentId) : undefined;
      if (state?.status !== 'issued' || !payment)
        throw new HttpProblem('not-found', `no payment ${paymentId}`);
      return toPaymentView(state, paymentId, payment);
    },
  );
};
