import type { CommandHandler } from '@once/idempotency';
import type { ProcessFaultHook } from '../faults/index.js';
import type { GatewayClient } from '../gateway/gateway-client.js';
import { cardPaymentHandler, cashPaymentHandler, issueInvoiceHandler } from '../invoices/invoice.handlers.js';
import {
  approveOrderHandler,
  completeOrderHandler,
  placeOrderHandler,
  serveOrderHandler,
} from '../orders/order.handlers.js';
import {
  openStockCountHandler,
  postStockCountHandler,
  recordCountLineHandler,
} from '../stock-counts/stock-count.handlers.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The handler of every command route (see `createCommandRegistry`). */
    commands: CommandRegistry;
  }
}

/** A keyed request as the key log recorded it: enough to pick its handler again. */
export interface RecordedCommand {
  readonly method: string;
  readonly route: string;
  readonly body: unknown;
}

/** Every command route's handler, found by method, route template and (for payments) the body. */
export interface CommandRegistry {
  handlerFor(command: RecordedCommand): CommandHandler | undefined;
}

const isCardPayment = (body: unknown): boolean =>
  typeof body === 'object' && body !== null && 'method' in body && body.method === 'card';

/**
 * The api's command handlers by route: the one place that says which handler runs a command, used by the routes
 * and by the completer (which finishes keys whose client went quiet, without the HTTP request).
 *
 * @example
 * const registry = createCommandRegistry({ gateway, faultPoint });
 * registry.handlerFor({ method: 'POST', route: '/invoices/:id/payments', body: { method: 'card' } });
 */
export const createCommandRegistry = (deps: {
  gateway: GatewayClient;
  faultPoint: ProcessFaultHook;
}): CommandRegistry => {
  const cardPayment = cardPaymentHandler(deps);
  const byRoute: Readonly<Record<string, (body: unknown) => CommandHandler>> = {
    'POST /invoices': () => issueInvoiceHandler,
    'POST /invoices/:id/payments': (body) => (isCardPayment(body) ? cardPayment : cashPaymentHandler),
    'POST /orders': () => placeOrderHandler,
    'POST /orders/:id/approve': () => approveOrderHandler,
    'POST /orders/:id/serve': () => serveOrderHandler,
    'POST /orders/:id/complete': () => completeOrderHandler,
    'POST /stock-counts': () => openStockCountHandler,
    'POST /stock-counts/:id/lines': () => recordCountLineHandler,
    'POST /stock-counts/:id/post': () => postStockCountHandler,
  };
  return { handlerFor: ({ method, route, body }) => byRoute[`${method} ${route}`]?.(body) };
};
