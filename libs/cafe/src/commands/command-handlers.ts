import { bindCommand, commandHandlers } from '@once/idempotency';
import type { CommandHandlers } from '@once/idempotency';
import type { SecretsKeyring } from '@once/webhooks';
import { cardPaymentHandler } from '../invoices/card-payment.handler.js';
import type { CardPaymentDeps } from '../invoices/card-payment.handler.js';
import { cashPaymentHandler, issueInvoiceHandler } from '../invoices/invoice.handlers.js';
import {
  issueInvoice,
  payInvoiceByCard,
  payInvoiceByCash,
  resolveCardPayment,
} from '../invoices/invoice.commands.js';
import { resolveCardPaymentHandler } from '../invoices/resolve-card-payment.handler.js';
import { setMenuItem, setMenuItemHandler, withdrawMenuItem, withdrawMenuItemHandler } from '../menu/index.js';
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

/**
 * What the handlers need besides the engine: the gateway, a fault point, the card settlements' clock and reads, and
 * the keyring webhook secrets are sealed with.
 */
export interface CommandHandlerDeps extends CardPaymentDeps {
  readonly secrets: SecretsKeyring;
}

/**
 * Every command's handler, by command type: built once at start; each route binds its commands' handlers from it
 * when it is declared, and the completer resumes a key from the command type its claim recorded.
 *
 * @example
 * const handlers = createCommandHandlers({ gateway, faultPoint, readStream, retryPolicy, now, secrets });
 * handlers.byType('PayInvoiceByCard');
 */
export const createCommandHandlers = (deps: CommandHandlerDeps): CommandHandlers =>
  commandHandlers([
    bindCommand(issueInvoice, issueInvoiceHandler),
    bindCommand(payInvoiceByCash, cashPaymentHandler),
    bindCommand(payInvoiceByCard, cardPaymentHandler(deps)),
    bindCommand(resolveCardPayment, resolveCardPaymentHandler(deps)),
    bindCommand(setMenuItem, setMenuItemHandler),
    bindCommand(withdrawMenuItem, withdrawMenuItemHandler),
    bindCommand(placeOrder, placeOrderHandler),
    bindCommand(approveOrder, approveOrderHandler),
    bindCommand(serveOrder, serveOrderHandler),
    bindCommand(completeOrder, completeOrderHandler),
    bindCommand(openStockCount, openStockCountHandler),
    bindCommand(recordCountLine, recordCountLineHandler),
    bindCommand(postStockCount, postStockCountHandler),
    bindCommand(registerWebhookEndpoint, registerWebhookEndpointHandler(deps.secrets)),
    bindCommand(rotateWebhookSecret, rotateWebhookSecretHandler(deps.secrets)),
    bindCommand(enableWebhookEndpoint, enableWebhookEndpointHandler),
    bindCommand(disableWebhookEndpoint, disableWebhookEndpointHandler),
    bindCommand(deleteWebhookEndpoint, deleteWebhookEndpointHandler),
  ]);
