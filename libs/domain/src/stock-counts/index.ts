export { decider as stockCountDecider, stockCountLimits } from './stock-count.decider.js';
export type { StockCountState } from './stock-count.decider.js';
export type {
  OpenStockCount,
  PostStockCount,
  RecordCountLine,
  StockCountCommand,
} from './stock-count.commands.js';
export type {
  CountLine,
  StockCountEvent,
  StockCountLineRecorded,
  StockCountOpened,
  StockCountPosted,
} from './stock-count.events.js';
export {
  EmptyStockCount,
  StockCountAlreadyOpened,
  StockCountAlreadyPosted,
  StockCountFull,
  StockCountNotFound,
} from './stock-count.errors.js';
