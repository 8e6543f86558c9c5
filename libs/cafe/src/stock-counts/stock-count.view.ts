import type { StockCountState } from '@once/domain/stock-counts';
import type { StockCountView } from './stock-count.schemas.js';

/** A stock count as the API shows it; undefined when there is none. */
export const toStockCountView = (state: StockCountState): StockCountView | undefined => {
  if (state.status === 'none') return undefined;
  return {
    id: state.stockCountId,
    status: state.status,
    lines: [...state.lines].map(([sku, countedQuantity]) => ({ sku, countedQuantity })),
    openedAt: state.openedAt,
    ...(state.status === 'posted' ? { postedAt: state.postedAt } : {}),
  };
};
