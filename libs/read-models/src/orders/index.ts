export { ordersProjection, ordersTable, salesTable } from './orders.projection.js';
export type { OrderRow, SaleRow } from './orders.projection.js';
export { getOrder, getSaleByOrder } from './orders.queries.js';
export type { OrderReadModel, SaleReadModel } from './orders.queries.js';
