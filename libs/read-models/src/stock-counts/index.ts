export { stockCountLinesTable, stockCountsProjection, stockCountsTable } from './stock-counts.projection.js';
export type { StockCountLineRow, StockCountRow } from './stock-counts.projection.js';
export { getStockCount } from './stock-counts.queries.js';
export type { StockCountReadModel } from './stock-counts.queries.js';
