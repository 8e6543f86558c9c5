export { defineTable, physicalTableName } from './table-definition.js';
export type { ColumnDefinition, ColumnType, ColumnValue, TableDefinition } from './table-definition.js';
export { fromDatabase, rowRef } from './unit-of-work.js';
export type { ProjectionTransaction, RowRef } from './unit-of-work.js';
