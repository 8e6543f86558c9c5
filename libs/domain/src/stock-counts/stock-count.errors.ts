import { DomainError } from '../errors/index.js';
import type { StockCountId } from '../shared/index.js';

export class StockCountNotFound extends DomainError<'stock-count-not-found', { stockCountId: StockCountId }> {
  constructor(data: { stockCountId: StockCountId }, options?: ErrorOptions) {
    super('stock-count-not-found', data, `stock count ${data.stockCountId} does not exist`, options);
  }
}

export class StockCountAlreadyOpened extends DomainError<
  'stock-count-already-opened',
  { stockCountId: StockCountId }
> {
  constructor(data: { stockCountId: StockCountId }, options?: ErrorOptions) {
    super('stock-count-already-opened', data, `stock count ${data.stockCountId} is already open`, options);
  }
}

export class StockCountAlreadyPosted extends DomainError<
  'stock-count-already-posted',
  { stockCountId: StockCountId }
> {
  constructor(data: { stockCountId: StockCountId }, options?: ErrorOptions) {
    super('stock-count-already-posted', data, `stock count ${data.stockCountId} is already posted`, options);
  }
}

export class EmptyStockCount extends DomainError<'empty-stock-count', { stockCountId: StockCountId }> {
  constructor(data: { stockCountId: StockCountId }, options?: ErrorOptions) {
    super('empty-stock-count', data, `stock count ${data.stockCountId} has no lines`, options);
  }
}
