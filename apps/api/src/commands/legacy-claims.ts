import type { CommandDefinition } from '@once/idempotency';
import { commandFromInput } from '@once/idempotency/fastify';
import type { ClaimUpcaster } from '@once/idempotency/key-log';
import { issueInvoice, payInvoiceByCard, payInvoiceByCash } from '../invoices/invoice.commands.js';
import { completeOrder, placeOrder, serveOrder } from '../orders/order.commands.js';
import { openStockCount, postStockCount, recordCountLine } from '../stock-counts/stock-count.commands.js';

/**
 * The command routes of the first key-log format, which recorded the HTTP request (method, route template, params,
 * body) instead of the typed command. Only this upcaster reads them; new claims record the command itself.
 */
const firstFormatRoutes: Readonly<Record<string, readonly CommandDefinition<unknown>[]>> = {
  'POST /invoices': [issueInvoice],
  'POST /invoices/:id/payments': [payInvoiceByCash, payInvoiceByCard],
  'POST /orders': [placeOrder],
  'POST /orders/:id/serve': [serveOrder],
  'POST /orders/:id/complete': [completeOrder],
  'POST /stock-counts': [openStockCount],
  'POST /stock-counts/:id/lines': [recordCountLine],
  'POST /stock-counts/:id/post': [postStockCount],
};

/**
 * Upcasts a first-format claim to its typed command through the same definitions the routes use, so a key claimed
 * before typed commands still resumes (and replays: its fingerprint is unchanged).
 *
 * @example
 * completeAbandonedKeys({ engine, handlers, upcast: upcastFirstFormatClaim });
 */
export const upcastFirstFormatClaim: ClaimUpcaster = ({ method, route, params, body }) => {
  const definitions = firstFormatRoutes[`${method} ${route}`];
  if (definitions === undefined) return undefined;
  return commandFromInput(
    definitions.map((definition) => ({ definition })),
    { params, body },
  )?.command;
};
