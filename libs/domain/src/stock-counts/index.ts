export { decider as stockCountDecider } from './stock-count.decider.js';
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
  StockCountNotFound,
} from './stock-count.errors.js';
