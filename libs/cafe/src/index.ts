export {
  aggregateCommand,
  createCommandHandlers,
  decideOrRefuse,
  emptyBody,
  foldSnapshot,
  routeCommand,
} from './commands/index.js';
export type { AggregateCommandSpec, CommandHandlerDeps } from './commands/index.js';
export {
  cardPaymentBody,
  cardPaymentHandler,
  cashPaymentBody,
  cashPaymentHandler,
  defaultSettlementRetryPolicy,
  invoiceIdParams,
  invoiceView,
  issueInvoice,
  issueInvoiceBody,
  issueInvoiceHandler,
  payInvoiceByCard,
  payInvoiceByCash,
  paymentIdParams,
  paymentNeedingAttentionView,
  paymentsNeedingAttentionList,
  paymentView,
  recordPaymentBody,
  resolveCardPayment,
  resolveCardPaymentHandler,
  resolvePaymentBody,
  toInvoiceView,
  toPaymentView,
} from './invoices/index.js';
export type { CardPaymentDeps, CardSettlementDeps, InvoiceView, PaymentView } from './invoices/index.js';
export {
  menuItemParams,
  menuItemView,
  menuView,
  setMenuItem,
  setMenuItemBody,
  setMenuItemHandler,
  withdrawMenuItem,
  withdrawMenuItemHandler,
  withdrawnMenuItemView,
} from './menu/index.js';
export {
  approveOrder,
  approveOrderHandler,
  completeOrder,
  completeOrderHandler,
  orderIdParams,
  orderKeyRetentionSeconds,
  orderView,
  placeOrder,
  placeOrderBody,
  placeOrderHandler,
  serveOrder,
  serveOrderHandler,
  toOrderView,
} from './orders/index.js';
export type { OrderView } from './orders/index.js';
export {
  openStockCount,
  openStockCountHandler,
  postStockCount,
  postStockCountHandler,
  recordCountLine,
  recordCountLineBody,
  recordCountLineHandler,
  stockCountIdParams,
  stockCountView,
  toStockCountView,
} from './stock-counts/index.js';
export type { StockCountView } from './stock-counts/index.js';
export {
  deleteWebhookEndpoint,
  deleteWebhookEndpointHandler,
  disableWebhookEndpoint,
  disableWebhookEndpointHandler,
  enableWebhookEndpoint,
  enableWebhookEndpointHandler,
  registerWebhookEndpoint,
  registerWebhookEndpointBody,
  registerWebhookEndpointHandler,
  rotateWebhookSecret,
  rotateWebhookSecretBody,
  rotateWebhookSecretHandler,
  webhookEndpointIdParams,
  webhookEndpointView,
  webhookEndpointWithSecret,
} from './webhook-endpoints/index.js';
export { gatewayEventSchema, inboxStream, receiveGatewayEvent } from './webhooks/index.js';
export type { GatewayEvent, GatewayInboxOptions, InboxOutcome } from './webhooks/index.js';
export { createGatewayClient, isUnknownGatewayOutcome } from './gateway/index.js';
export type { ChargeInput, GatewayCharge, GatewayClient, GatewayRefusal } from './gateway/index.js';
export {
  domainProblem,
  HttpProblem,
  problemCatalog,
  problemOfError,
  problemResponse,
} from './problems/index.js';
export type { ApiProblemCatalog, ApiProblemType } from './problems/index.js';
export {
  assertKeyRetentionCoversRetries,
  cardRetryPolicyFromEnv,
  KeyRetentionTooShortError,
  settlementRetryWindowMs,
} from './completer/index.js';
export { openEventStore, startBackgroundWork } from './background/index.js';
export type {
  BackgroundWork,
  BackgroundWorkDeps,
  BackgroundWorkSettings,
  OpenEventStoreOptions,
} from './background/index.js';
export {
  metricsListenerPaths,
  registerBackgroundWorkMetrics,
  registerWebhookDeliveryMetrics,
  serveMetrics,
} from './metrics/index.js';
export type { BackgroundWorkMetrics, MetricsListener } from './metrics/index.js';
export { createProcessFaultHook, parseProcessFault, processFaultPoints } from './faults/index.js';
export type { ProcessFaultHook, ProcessFaultPoint, ProcessFaultSpec } from './faults/index.js';
