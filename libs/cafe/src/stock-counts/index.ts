export { openStockCount, postStockCount, recordCountLine } from './stock-count.commands.js';
export {
  openStockCountHandler,
  postStockCountHandler,
  recordCountLineHandler,
} from './stock-count.handlers.js';
export { recordCountLineBody, stockCountIdParams, stockCountView } from './stock-count.schemas.js';
export type { StockCountView } from './stock-count.schemas.js';
export { toStockCountView } from './stock-count.view.js';
