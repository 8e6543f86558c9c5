import type { Decider } from '../decider/index.js';
import {
  requireCurrency,
  requireNonNegativeAmount,
  requireQuantity,
  requireSameCurrency,
  sumLines,
} from '../rules/index.js';
import { money } from '../values/index.js';
import type { CurrencyCode, Money, OrderId, SaleId, TenantId, Timestamp } from '../values/index.js';
import type { CompleteOrder, OrderCommand, OrderLine, PlaceOrder } from './order.commands.js';
import {
  EmptyOrder,
  ItemNotOnMenu,
  OrderAlreadyCompleted,
  OrderAlreadyPlaced,
  OrderAlreadyServed,
  OrderAwaitingReview,
  OrderNotFound,
  OrderNotHeld,
  OrderNotServed,
  TooManyOrderLines,
} from './order.errors.js';
import type { OrderEvent } from './order.events.js';

/** What an order is, whatever its status. */
export interface OrderDetails {
  readonly tenantId: TenantId;
  readonly orderId: OrderId;
  readonly lines: readonly OrderLine[];
  readonly total: Money;
  readonly placedAt: Timestamp;
}

export type OrderState =
  | { readonly status: 'none' }
  | { readonly status: 'placed'; readonly order: OrderDetails }
  | { readonly status: 'held'; readonly order: OrderDetails; readonly expectedTotal: Money }
  | { readonly status: 'served'; readonly order: OrderDetails; readonly servedAt: Timestamp }
  | {
      readonly status: 'completed';
      readonly order: OrderDetails;
      readonly saleId: SaleId;
      readonly completedAt: Timestamp;
    };

/** A stream with no events: no order yet. */
export const initialState = (): OrderState => ({ status: 'none' });

/** The most lines one order has: each is priced from the menu when the order arrives. */
export const maxOrderLines = 200;

/** Each ordered item at the menu's price, or `ItemNotOnMenu` / `CurrencyMismatch` for the first line that has none. */
const priceLines = (data: PlaceOrder['data'], currency: CurrencyCode): readonly OrderLine[] =>
  data.items.map((item, line) => {
    const quantity = requireQuantity(`lines/${line}/quantity`, item.quantity);
    const onMenu = data.menu.items.get(item.sku);
    if (onMenu === undefined) throw new ItemNotOnMenu({ orderId: data.orderId, sku: item.sku, line });
    return { sku: item.sku, quantity, unitPrice: requireSameCurrency(currency, onMenu.unitPrice).amount };
  });

const place = ({ data }: PlaceOrder, state: OrderState): readonly OrderEvent[] => {
  if (state.status !== 'none') throw new OrderAlreadyPlaced({ orderId: data.orderId });
  const currency = requireCurrency(data.currency);
  if (data.items.length === 0) throw new EmptyOrder({ orderId: data.orderId });
  if (data.items.length > maxOrderLines) {
    throw new TooManyOrderLines({ orderId: data.orderId, lines: data.items.length, maxLines: maxOrderLines });
  }
  const lines = priceLines(data, currency);
  const total = money(sumLines('total', lines), currency);
  const ids = { tenantId: data.tenantId, orderId: data.orderId };
  const placed: OrderEvent = {
    type: 'OrderPlaced',
    data: { ...ids, lines, total, placedAt: data.placedAt },
  };
  if (data.expectedTotal === undefined) return [placed];
  const expectedTotal = money(requireNonNegativeAmount('expectedTotal', data.expectedTotal), currency);
  if (expectedTotal.amount === total.amount) return [placed];
  return [
    placed,
    { type: 'OrderHeldForReview', data: { ...ids, expectedTotal, total, heldAt: data.placedAt } },
  ];
};

const complete = ({ data }: CompleteOrder, state: OrderState): readonly OrderEvent[] => {
  switch (state.status) {
    case 'none':
      throw new OrderNotFound({ orderId: data.orderId });
    case 'placed':
    case 'held':
      throw new OrderNotServed({ orderId: data.orderId });
    case 'completed':
      throw new OrderAlreadyCompleted({ orderId: data.orderId, saleId: state.saleId });
    case 'served': {
      const { tenantId, orderId, lines, total } = state.order;
      return [
        {
          type: 'OrderCompleted',
          data: { tenantId, orderId, saleId: data.saleId, completedAt: data.completedAt },
        },
        {
          type: 'SaleRecorded',
          data: { tenantId, saleId: data.saleId, orderId, lines, total, recordedAt: data.completedAt },
        },
      ];
    }
    default: {
      const _exhaustive: never = state;
      return _exhaustive;
    }
  }
};

const serve = (orderId: OrderId, servedAt: Timestamp, state: OrderState): readonly OrderEvent[] => {
  switch (state.status) {
    case 'none':
      throw new OrderNotFound({ orderId });
    case 'held':
      throw new OrderAwaitingReview({
        orderId,
        expectedTotal: state.expectedTotal,
        total: state.order.total,
      });
    case 'served':
      throw new OrderAlreadyServed({ orderId });
    case 'completed':
      throw new OrderAlreadyCompleted({ orderId, saleId: state.saleId });
    case 'placed': {
      const { tenantId } = state.order;
      return [{ type: 'OrderServed', data: { tenantId, orderId, servedAt } }];
    }
    default: {
      const _exhaustive: never = state;
      return _exhaustive;
    }
  }
};

const approve = (orderId: OrderId, approvedAt: Timestamp, state: OrderState): readonly OrderEvent[] => {
  if (state.status === 'none') throw new OrderNotFound({ orderId });
  if (state.status !== 'held') throw new OrderNotHeld({ orderId });
  const { tenantId, total } = state.order;
  return [{ type: 'OrderApproved', data: { tenantId, orderId, total, approvedAt } }];
};

/**
 * Decides an order command against the order's state; throws a `DomainError` when a rule forbids it.
 * An order is served only from `placed`, and completed (recording its sale) only from `served`, once.
 *
 * @param command - PlaceOrder, ApproveOrder, ServeOrder or CompleteOrder.
 * @param state - the fold of the order stream.
 * @returns the events to append.
 * @example
 * decide({ type: 'CompleteOrder', data: { orderId, saleId, completedAt } }, served); // [OrderCompleted, SaleRecorded]
 */
export const decide = (command: OrderCommand, state: OrderState): readonly OrderEvent[] => {
  switch (command.type) {
    case 'PlaceOrder':
      return place(command, state);
    case 'ApproveOrder':
      return approve(command.data.orderId, command.data.approvedAt, state);
    case 'ServeOrder':
      return serve(command.data.orderId, command.data.servedAt, state);
    case 'CompleteOrder':
      return complete(command, state);
    default: {
      const _exhaustive: never = command;
      return _exhaustive;
    }
  }
};

/**
 * Folds one order event into the state. Events that cannot apply in the current status leave it as is.
 * @example const state = events.reduce(evolve, initialState());
 */
export const evolve = (state: OrderState, event: OrderEvent): OrderState => {
  switch (event.type) {
    case 'OrderPlaced': {
      const { tenantId, orderId, lines, total, placedAt } = event.data;
      return { status: 'placed', order: { tenantId, orderId, lines, total, placedAt } };
    }
    case 'OrderHeldForReview':
      return state.status === 'placed'
        ? { status: 'held', order: state.order, expectedTotal: event.data.expectedTotal }
        : state;
    case 'OrderApproved':
      return state.status === 'held' ? { status: 'placed', order: state.order } : state;
    case 'OrderServed':
      return state.status === 'placed'
        ? { status: 'served', order: state.order, servedAt: event.data.servedAt }
        : state;
    case 'OrderCompleted':
      return state.status === 'served'
        ? {
            status: 'completed',
            order: state.order,
            saleId: event.data.saleId,
            completedAt: event.data.completedAt,
          }
        : state;
    case 'SaleRecorded':
      return state;
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
};

/**
 * The order decider: place (priced from the menu, held for review when the client showed another total), serve,
 * complete into exactly one sale.
 */
export const decider: Decider<OrderCommand, OrderEvent, OrderState> = { decide, evolve, initialState };
