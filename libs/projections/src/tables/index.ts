export { defineTable, physicalTableName, tableDdl } from './table-definition.js';
export type {
  ColumnDefinition,
  ColumnType,
  ColumnValue,
  IndexDefinition,
  RowKey,
  TableDefinition,
} from './table-definition.js';
export { BatchUnitOfWork, fromDatabase, rowRef } from './unit-of-work.js';
export type { ProjectionTransaction, RowRef } from './unit-of-work.js';
