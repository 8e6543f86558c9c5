export { allProjections } from './all-projections.js';
export {
  abandonedKeyCompleter,
  completeAbandonedKeysOnce,
  expiredKeySweeper,
  getIdempotencyKey,
  idempotencyKeysProjection,
  idempotencyKeysTable,
  listAbandonedKeys,
  removeKeyRowsOfStreams,
  startCompleter,
  sweepExpiredKeys,
} from './idempotency-keys/index.js';
export type {
  CompleterOptions,
  ExpiredKeySweeperOptions,
  IdempotencyKeyRow,
  IdempotencyKeyStatus,
  KeySweep,
  KeySweepCursor,
  SweepExpiredKeysOptions,
} from './idempotency-keys/index.js';
export {
  getInvoice,
  getPayment,
  invoicesProjection,
  invoicesTable,
  paymentsTable,
} from './invoices/index.js';
export type { InvoiceReadModel, InvoiceRow, PaymentReadModel, PaymentRow } from './invoices/index.js';
export { getOrder, getSaleByOrder, ordersProjection, ordersTable, salesTable } from './orders/index.js';
export type { OrderReadModel, OrderRow, SaleReadModel, SaleRow } from './orders/index.js';
export {
  getStockCount,
  stockCountLinesTable,
  stockCountsProjection,
  stockCountsTable,
} from './stock-counts/index.js';
export type { StockCountLineRow, StockCountReadModel, StockCountRow } from './stock-counts/index.js';
