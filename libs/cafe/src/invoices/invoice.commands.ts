import { z } from 'zod';
import { routeCommand } from '../commands/route-command.js';
import {
  cardPaymentBody,
  cashPaymentBody,
  invoiceIdParams,
  issueInvoiceBody,
  paymentIdParams,
  resolvePaymentBody,
} from './invoice.schemas.js';

/** `POST /invoices`: the invoice's lines (or its total) as validated; its id comes from the key. */
export const issueInvoice = routeCommand(
  'IssueInvoice',
  1,
  z.object({ body: issueInvoiceBody }).transform(({ body }) => body),
);

/** `POST /invoices/:id/payments` with `method: cash`. */
export const payInvoiceByCash = routeCommand(
  'PayInvoiceByCash',
  1,
  z.object({ params: invoiceIdParams, body: cashPaymentBody }).transform(({ params, body }) => ({
    invoiceId: params.id,
    amount: body.amount,
    currency: body.currency,
  })),
);

/**
 * `POST /invoices/:id/payments` with `method: card`: the amount is charged through the gateway. The key log keeps
 * only a reference to the card token; a resume without the client's request cannot charge.
 */
export const payInvoiceByCard = routeCommand(
  'PayInvoiceByCard',
  1,
  z.object({ params: invoiceIdParams, body: cardPaymentBody }).transform(({ params, body }) => ({
    invoiceId: params.id,
    amount: body.amount,
    currency: body.currency,
    cardToken: body.cardToken,
  })),
  { secretFields: ['cardToken'] },
);

/** `POST /payments/:id/resolve`: an operator settles a card payment that needs attention. */
export const resolveCardPayment = routeCommand(
  'ResolveCardPayment',
  1,
  z.object({ params: paymentIdParams, body: resolvePaymentBody }).transform(({ params, body }) => ({
    paymentId: params.id,
    action: body.action,
    note: body.note,
  })),
);
