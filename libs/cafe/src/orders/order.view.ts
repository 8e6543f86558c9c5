import type { OrderState } from '@once/domain/orders';
import type { OrderView } from './order.schemas.js';

/** An order as the API shows it; undefined when there is no order. */
export const toOrderView = (state: OrderState): OrderView | undefined => {
  if (state.status === 'none') return undefined;
  const { order } = state;
  const base = {
    id: order.orderId,
    status: state.status,
    currency: order.total.currency,
    total: order.total.amount,
    lines: order.lines.map(({ sku, quantity, unitPrice }) => ({ sku, quantity, unitPrice })),
    placedAt: order.placedAt,
  };
  switch (state.status) {
    case 'placed':
      return base;
    case 'held':
      return { ...base, expectedTotal: state.expectedTotal.amount };
    case 'served':
      return { ...base, servedAt: state.servedAt };
    case 'completed':
      return { ...base, saleId: state.saleId, completedAt: state.completedAt };
    default: {
      const _exhaustive: never = state;
      return _exhaustive;
    }
  }
};
