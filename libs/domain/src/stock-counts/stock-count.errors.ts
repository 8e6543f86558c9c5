import { domainError } from '../errors/index.js';
import type { StockCountId } from '../values/index.js';

/** One stock count. */
interface StockCountRef {
  readonly stockCountId: StockCountId;
}

export class StockCountNotFound extends domainError('stock-count-not-found')<StockCountRef> {}
export class StockCountAlreadyOpened extends domainError('stock-count-already-opened')<StockCountRef> {}
export class StockCountAlreadyPosted extends domainError('stock-count-already-posted')<StockCountRef> {}
export class EmptyStockCount extends domainError('empty-stock-count')<StockCountRef> {}
export class StockCountFull extends domainError('stock-count-full')<
  StockCountRef & { readonly limit: number; readonly of: 'lines' | 'recordings' }
> {}
