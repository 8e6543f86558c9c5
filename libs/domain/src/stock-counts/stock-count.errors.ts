import { domainError } from '../errors/index.js';
import type { StockCountId } from '../shared/index.js';

export class StockCountNotFound extends domainError(
  'stock-count-not-found',
  (data: { stockCountId: StockCountId }) => `stock count ${data.stockCountId} does not exist`,
) {}

export class StockCountAlreadyOpened extends domainError(
  'stock-count-already-opened',
  (data: { stockCountId: StockCountId }) => `stock count ${data.stockCountId} is already open`,
) {}

export class StockCountAlreadyPosted extends domainError(
  'stock-count-already-posted',
  (data: { stockCountId: StockCountId }) => `stock count ${data.stockCountId} is already posted`,
) {}

export class EmptyStockCount extends domainError(
  'empty-stock-count',
  (data: { stockCountId: StockCountId }) => `stock count ${data.stockCountId} has no lines`,
) {}
