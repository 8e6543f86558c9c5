import { describe, expect, it } from 'vitest';
import { InvalidAmount, InvalidCurrency, InvalidQuantity } from '../errors/index.js';
import { asOrderId, asSaleId, asSku, asTenantId, money } from '../values/index.js';
import { deciderSpecification } from '../testing/index.js';
import type { OrderCommand, OrderLine } from './order.commands.js';
import { decider, evolve, initialState } from './order.decider.js';
import {
  EmptyOrder,
  OrderAlreadyCompleted,
  OrderAlreadyPlaced,
  OrderAlreadyServed,
  OrderAwaitingReview,
  OrderNotFound,
  OrderNotHeld,
  OrderNotServed,
} from './order.errors.js';
import type { OrderEvent } from './order.events.js';

const given = deciderSpecification(decider);
const tenantId = asTenantId('tenant-1');
const orderId = asOrderId('ord-1');
const saleId = asSaleId('sale-1');
const at = '2026-01-31T12:00:00.000Z';
const later = '2026-01-31T12:05:00.000Z';
const eur = (amount: number) => money(amount, 'EUR');
const ids = { tenantId, orderId };

const lines: OrderLine[] = [
  { sku: asSku('espresso'), quantity: 2, unitPrice: 250 },
  { sku: asSku('croissant'), quantity: 1, unitPrice: 300 },
];

const place = (
  overrides: Partial<Extract<OrderCommand, { type: 'PlaceOrder' }>['data']> = {},
): OrderCommand => ({
  type: 'PlaceOrder',
  data: { tenantId, orderId, currency: 'EUR', lines, placedAt: at, ...overrides },
});
const serve: OrderCommand = { type: 'ServeOrder', data: { orderId, servedAt: later } };
const approve: OrderCommand = { type: 'ApproveOrder', data: { orderId, approvedAt: later } };
const complete: OrderCommand = { type: 'CompleteOrder', data: { orderId, saleId, completedAt: later } };

const placed: OrderEvent = { type: 'OrderPlaced', data: { ...ids, lines, total: eur(800), placedAt: at } };
const held: OrderEvent = {
  type: 'OrderHeldForReview',
  data: { ...ids, expectedTotal: eur(700), total: eur(800), heldAt: at },
};
const approved: OrderEvent = { type: 'OrderApproved', data: { ...ids, total: eur(800), approvedAt: later } };
const served: OrderEvent = { type: 'OrderServed', data: { ...ids, servedAt: later } };
const completed: OrderEvent = { type: 'OrderCompleted', data: { ...ids, saleId, completedAt: later } };
const saleRecorded: OrderEvent = {
  type: 'SaleRecorded',
  data: { tenantId, saleId, orderId, lines, total: eur(800), recordedAt: later },
};

describe('PlaceOrder', () => {
  it('places an order priced by its lines', () => {
    given([]).when(place()).then([placed]);
  });

  it('places it plainly when the expected total matches the current prices', () => {
    given([])
      .when(place({ expectedTotal: 800 }))
      .then([placed]);
  });

  it('holds it for review, not repriced, when the client expected another total (offline queue)', () => {
    given([])
      .when(place({ expectedTotal: 700 }))
      .then([placed, held]);
  });

  it('places an order once', () => {
    given([placed]).when(place()).then(OrderAlreadyPlaced, { orderId });
  });

  it('refuses an order without lines', () => {
    given([])
      .when(place({ lines: [] }))
      .then(EmptyOrder, { orderId });
  });

  it('refuses bad quantities, prices, currencies and expected totals', () => {
    given([])
      .when(place({ lines: [{ sku: asSku('tea'), quantity: 0, unitPrice: 100 }] }))
      .then(InvalidQuantity, { field: 'lines/0/quantity', quantity: 0 });
    given([])
      .when(place({ lines: [{ sku: asSku('tea'), quantity: 1, unitPrice: 0.5 }] }))
      .then(InvalidAmount, { field: 'lines/0/unitPrice', amount: 0.5 });
    given([])
      .when(place({ currency: 'euro' }))
      .then(InvalidCurrency);
    given([])
      .when(place({ expectedTotal: -1 }))
      .then(InvalidAmount, { field: 'expectedTotal', amount: -1 });
  });
});

describe('ApproveOrder', () => {
  it('approves an order held for review, which can then be served', () => {
    given([placed, held]).when(approve).then([approved]);
    given([placed, held, approved]).when(serve).then([served]);
  });

  it('approves only held orders', () => {
    given([placed]).when(approve).then(OrderNotHeld, { orderId });
    given([]).when(approve).then(OrderNotFound, { orderId });
  });
});

describe('ServeOrder', () => {
  it('serves a placed order', () => {
    given([placed]).when(serve).then([served]);
  });

  it('serves only from placed', () => {
    given([]).when(serve).then(OrderNotFound, { orderId });
    given([placed, held])
      .when(serve)
      .then(OrderAwaitingReview, { orderId, expectedTotal: eur(700), total: eur(800) });
    given([placed, served]).when(serve).then(OrderAlreadyServed, { orderId });
    given([placed, served, completed, saleRecorded]).when(serve).then(OrderAlreadyCompleted);
  });
});

describe('CompleteOrder', () => {
  it('completes a served order and records its sale', () => {
    given([placed, served]).when(complete).then([completed, saleRecorded]);
  });

  it('records the sale once: a second completion is refused', () => {
    given([placed, served, completed, saleRecorded])
      .when(complete)
      .then(OrderAlreadyCompleted, { orderId, saleId });
    given([placed, served, completed, saleRecorded])
      .when({ type: 'CompleteOrder', data: { orderId, saleId: asSaleId('sale-2'), completedAt: later } })
      .then(OrderAlreadyCompleted, { orderId, saleId });
  });

  it('completes only a served order', () => {
    given([]).when(complete).then(OrderNotFound, { orderId });
    given([placed]).when(complete).then(OrderNotServed, { orderId });
    given([placed, held]).when(complete).then(OrderNotServed, { orderId });
  });
});

describe('order state', () => {
  it('follows placed → held → placed → served → completed', () => {
    const statuses = [placed, held, approved, served, completed, saleRecorded]
      .reduce<ReturnType<typeof initialState>[]>(
        (states, event) => [...states, evolve(states.at(-1) ?? initialState(), event)],
        [],
      )
      .map((state) => state.status);
    expect(statuses).toEqual(['placed', 'held', 'placed', 'served', 'completed', 'completed']);
  });

  it('ignores events that do not fit the status', () => {
    expect(evolve(initialState(), served)).toEqual({ status: 'none' });
    expect(evolve(evolve(initialState(), placed), completed).status).toBe('placed');
  });
});
