import { bindCommand, commandHandlers } from '@once/idempotency';
import type { CommandHandlers } from '@once/idempotency';
import type { ProcessFaultHook } from '../faults/index.js';
import type { GatewayClient } from '../gateway/gateway-client.js';
import { issueInvoice, payInvoiceByCard, payInvoiceByCash } from '../invoices/invoice.commands.js';
import { cardPaymentHandler, cashPaymentHandler, issueInvoiceHandler } from '../invoices/invoice.handlers.js';
import { approveOrder, completeOrder, placeOrder, serveOrder } from '../orders/order.commands.js';
import {
  approveOrderHandler,
  completeOrderHandler,
  placeOrderHandler,
  serveOrderHandler,
} from '../orders/order.handlers.js';
import { openStockCount, postStockCount, recordCountLine } from '../stock-counts/stock-count.commands.js';
import {
  openStockCountHandler,
  postStockCountHandler,
  recordCountLineHandler,
} from '../stock-counts/stock-count.handlers.js';
import {
  deleteWebhookEndpoint,
  disableWebhookEndpoint,
  enableWebhookEndpoint,
  registerWebhookEndpoint,
  rotateWebhookSecret,
} from '../webhook-endpoints/webhook-endpoint.commands.js';
import {
  deleteWebhookEndpointHandler,
  disableWebhookEndpointHandler,
  enableWebhookEndpointHandler,
  registerWebhookEndpointHandler,
  rotateWebhookSecretHandler,
} from '../webhook-endpoints/webhook-endpoint.handlers.js';

/** What the handlers need from outside the event store. */
export interface CommandHandlerDeps {
  readonly gateway: GatewayClient;
  readonly faultPoint: ProcessFaultHook;
}

/**
 * Every command's handler, by command type: the routes run them, and the completer resumes a key from the command
 * type its claim recorded.
 *
 * @example
 * const handlers = createCommandHandlers({ gateway, faultPoint });
 * handlers.handlerOf(payInvoiceByCard);
 */
export const createCommandHandlers = (deps: CommandHandlerDeps): CommandHandlers =>
  commandHandlers([
    bindCommand(issueInvoice, issueInvoiceHandler),
    bindCommand(payInvoiceByCash, cashPaymentHandler),
    bindCommand(payInvoiceByCard, cardPaymentHandler(deps)),
    bindCommand(placeOrder, placeOrderHandler),
    bindCommand(approveOrder, approveOrderHandler),
    bindCommand(serveOrder, serveOrderHandler),
    bindCommand(completeOrder, completeOrderHandler),
    bindCommand(openStockCount, openStockCountHandler),
    bindCommand(recordCountLine, recordCountLineHandler),
    bindCommand(postStockCount, postStockCountHandler),
    bindCommand(registerWebhookEndpoint, registerWebhookEndpointHandler),
    bindCommand(rotateWebhookSecret, rotateWebhookSecretHandler),
    bindCommand(enableWebhookEndpoint, enableWebhookEndpointHandler),
    bindCommand(disableWebhookEndpoint, disableWebhookEndpointHandler),
    bindCommand(deleteWebhookEndpoint, deleteWebhookEndpointHandler),
  ]);
