export { defineTable, physicalTableName, rowRef } from './tables/index.js';
export type {
  ColumnDefinition,
  ColumnType,
  ColumnValue,
  ProjectionTransaction,
  RowRef,
  TableDefinition,
} from './tables/index.js';
export {
  CheckpointConflictError,
  silentLogger,
  startProjectionGroupRunner,
  startProjectionRunner,
} from './runner/index.js';
export type {
  BatchReport,
  ProjectionDefinition,
  ProjectionLogger,
  ProjectionRunner,
  ProjectionGroupRunnerOptions,
  ProjectionRunnerOptions,
  RunnerFaults,
  RunnerTarget,
  RunnerState,
} from './runner/index.js';
export { migrateProjectionsSchema } from './schema/index.js';
export {
  dropRetiredVersions,
  ensureLiveVersion,
  getLiveVersion,
  listVersions,
  makeVersionLive,
  startBuildingVersion,
} from './versions/index.js';
export type { ProjectionVersion } from './versions/index.js';
export { readLiveCheckpoint, waitForPosition } from './consistency/index.js';
export type { WaitForPositionOptions, WaitForPositionResult } from './consistency/index.js';
export { rebuildProjection, rebuildProjections } from './rebuild/index.js';
export type { RebuildManyOptions, RebuildOptions, RebuildOutcome, RebuildProgress } from './rebuild/index.js';
export { completeAbandonedKeysOnce, startCompleter, startProjector } from './projector/index.js';
export type { Completer, CompleterOptions, Projector, ProjectorOptions } from './projector/index.js';
export {
  getIdempotencyKey,
  idempotencyKeysProjection,
  idempotencyKeysTable,
  listAbandonedKeys,
  removeKeyRowsOfStreams,
  sweepExpiredKeys,
} from './read-models/idempotency-keys/index.js';
export type {
  IdempotencyKeyRow,
  IdempotencyKeyStatus,
  KeySweep,
  KeySweepCursor,
  SweepExpiredKeysOptions,
} from './read-models/idempotency-keys/index.js';
export { allProjections } from './read-models/index.js';
export {
  cardSettlementsProjection,
  cardSettlementsTable,
  countPaymentsNeedingAttention,
  listPaymentsNeedingAttention,
} from './read-models/card-settlements/index.js';
export type {
  CardSettlementRow,
  CardSettlementStatus,
  PaymentNeedingAttentionReadModel,
} from './read-models/card-settlements/index.js';
export {
  getInvoice,
  getPayment,
  invoicesProjection,
  invoicesTable,
  paymentsTable,
} from './read-models/invoices/index.js';
export type {
  InvoiceReadModel,
  InvoiceRow,
  PaymentReadModel,
  PaymentRow,
} from './read-models/invoices/index.js';
export {
  getOrder,
  getSaleByOrder,
  ordersProjection,
  ordersTable,
  salesTable,
} from './read-models/orders/index.js';
export type { OrderReadModel, OrderRow, SaleReadModel, SaleRow } from './read-models/orders/index.js';
export {
  getStockCount,
  stockCountLinesTable,
  stockCountsProjection,
  stockCountsTable,
} from './read-models/stock-counts/index.js';
export type {
  StockCountLineRow,
  StockCountReadModel,
  StockCountRow,
} from './read-models/stock-counts/index.js';
