import { formatMoney } from '../common/index.js';
import type { InvoiceSummary, Ticket, TillOrder } from './till-model.js';

/** The order view the api answers order commands with. */
export interface OrderAnswer {
  readonly id: string;
  readonly status: 'placed' | 'held' | 'served' | 'completed';
  readonly total: number;
  readonly expectedTotal?: number;
  readonly currency: string;
}

/** Reads an invoice view into what the till keeps of it. */
export const toInvoiceSummary = (body: unknown): InvoiceSummary => {
  const invoice = body as InvoiceSummary;
  return {
    id: invoice.id,
    total: invoice.total,
    paid: invoice.paid,
    outstanding: invoice.outstanding,
    payments: invoice.payments.map(({ id, method, status }) => ({ id, method, status })),
  };
};

/**
 * Folds an intent's successful answer into its order. Returns what should follow: a bill once the order is placed at
 * a total everyone agreed to, a fresh read of the invoice after a payment.
 *
 * @example
 * const next = applySuccess(order, { kind: 'place', localId }, answerBody);
 */
export const applySuccess = (
  order: TillOrder,
  ticket: Ticket,
  body: unknown,
): 'bill' | 'read-invoice' | undefined => {
  switch (ticket.kind) {
    case 'place':
    case 'approve': {
      const answer = body as OrderAnswer;
      order.orderId = answer.id;
      order.status = answer.status;
      order.total = answer.total;
      if (answer.status === 'held') {
        const shown = formatMoney(answer.expectedTotal ?? order.shownTotal, order.currency);
        order.note = `Held for review: the menu's prices differ from what it showed. It showed ${shown}, now ${formatMoney(answer.total, order.currency)}.`;
        return undefined;
      }
      delete order.note;
      return 'bill';
    }
    case 'serve':
    case 'complete':
      order.status = (body as OrderAnswer).status;
      return undefined;
    case 'bill':
      order.invoice = toInvoiceSummary(body);
      return undefined;
    case 'pay':
      delete order.payingKey;
      return 'read-invoice';
    default: {
      const _exhaustive: never = ticket;
      return _exhaustive;
    }
  }
};

/** Folds a definitive refusal into its order. */
export const applyRefusal = (order: TillOrder, ticket: Ticket, reason: string): void => {
  order.note = reason;
  if (ticket.kind === 'place') order.status = 'refused';
  if (ticket.kind === 'pay') delete order.payingKey;
  if (ticket.kind === 'bill') delete order.billKey;
};

/** How the queue names a ticket. */
export const ticketLabel = (ticket: Ticket, order: TillOrder | undefined): string => {
  const name = order ? `order ${String(order.number)}` : 'an order';
  switch (ticket.kind) {
    case 'place':
      return `Place ${name}`;
    case 'approve':
      return `Accept the new total of ${name}`;
    case 'serve':
      return `Serve ${name}`;
    case 'complete':
      return `Complete ${name}`;
    case 'bill':
      return `Bill ${name}`;
    case 'pay':
      return `Pay ${name} by ${ticket.method}`;
    default: {
      const _exhaustive: never = ticket;
      return _exhaustive;
    }
  }
};
