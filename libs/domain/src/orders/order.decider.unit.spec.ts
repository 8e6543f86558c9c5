import { describe, expect, it } from 'vitest';
import { CurrencyMismatch, InvalidAmount, InvalidCurrency, InvalidQuantity } from '../errors/index.js';
import { asOrderId, asSaleId, asSku, asTenantId, money } from '../values/index.js';
import { deciderSpecification, menuOf } from '../testing/index.js';
import type { OrderCommand, OrderedItem, OrderLine } from './order.commands.js';
import { decider, evolve, initialState, maxOrderLines } from './order.decider.js';
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

const given = deciderSpecification(decider);
const tenantId = asTenantId('tenant-1');
const orderId = asOrderId('ord-1');
const saleId = asSaleId('sale-1');
const at = '2026-01-31T12:00:00.000Z';
const later = '2026-01-31T12:05:00.000Z';
const eur = (amount: number) => money(amount, 'EUR');
const ids = { tenantId, orderId };

const menu = menuOf([
  { sku: 'espresso', unitPrice: 250 },
  { sku: 'croissant', unitPrice: 300 },
]);
const items: OrderedItem[] = [
  { sku: asSku('espresso'), quantity: 2 },
  { sku: asSku('croissant'), quantity: 1 },
];
const lines: OrderLine[] = [
  { sku: asSku('espresso'), quantity: 2, unitPrice: 250 },
  { sku: asSku('croissant'), quantity: 1, unitPrice: 300 },
];

const place = (
  overrides: Partial<Extract<OrderCommand, { type: 'PlaceOrder' }>['data']> = {},
): OrderCommand => ({
  type: 'PlaceOrder',
  data: { tenantId, orderId, currency: 'EUR', items, menu, placedAt: at, ...overrides },
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
  it('places an order priced line by line from the menu', () => {
    given([]).when(place()).then([placed]);
  });

  it('places it plainly when the expected total matches the menu', () => {
    given([])
      .when(place({ expectedTotal: 800 }))
      .then([placed]);
  });

  it('holds it for review at the menu total, not repriced, when the client showed another total', () => {
    given([])
      .when(place({ expectedTotal: 700 }))
      .then([placed, held]);
  });

  it('prices at the menu in force when the order arrives: a repricing while it waited offline holds it', () => {
    const repriced = menuOf([
      { sku: 'espresso', unitPrice: 300 },
      { sku: 'croissant', unitPrice: 300 },
    ]);
    const atNewPrices = [
      { sku: asSku('espresso'), quantity: 2, unitPrice: 300 },
      { sku: asSku('croissant'), quantity: 1, unitPrice: 300 },
    ];
    given([])
      .when(place({ menu: repriced, expectedTotal: 800 }))
      .then([
        { type: 'OrderPlaced', data: { ...ids, lines: atNewPrices, total: eur(900), placedAt: at } },
        {
          type: 'OrderHeldForReview',
          data: { ...ids, expectedTotal: eur(800), total: eur(900), heldAt: at },
        },
      ]);
  });

  it('refuses the whole order when a line is not on the menu (never listed, or withdrawn)', () => {
    given([])
      .when(place({ items: [...items, { sku: asSku('muffin'), quantity: 1 }] }))
      .then(ItemNotOnMenu, { orderId, sku: 'muffin', line: 2 });
    given([])
      .when(place({ menu: menuOf([{ sku: 'croissant', unitPrice: 300 }]) }))
      .then(ItemNotOnMenu, { orderId, sku: 'espresso', line: 0 });
  });

  it('refuses a line priced in another currency than the order', () => {
    given([])
      .when(
        place({
          menu: menuOf([{ sku: 'espresso', unitPrice: 250, currency: 'USD' }]),
          items: [{ sku: asSku('espresso'), quantity: 1 }],
        }),
      )
      .then(CurrencyMismatch, { expected: 'EUR', given: 'USD' });
  });

  it('places an order once', () => {
    given([placed]).when(place()).then(OrderAlreadyPlaced, { orderId });
  });

  it(`refuses an order without lines, or with more than ${String(maxOrderLines)}`, () => {
    given([])
      .when(place({ items: [] }))
      .then(EmptyOrder, { orderId });
    const tooMany = Array.from({ length: maxOrderLines + 1 }, () => ({
      sku: asSku('espresso'),
      quantity: 1,
    }));
    given([])
      .when(place({ items: tooMany }))
      .then(TooManyOrderLines, { orderId, lines: maxOrderLines + 1, maxLines: maxOrderLines });
  });

  it('refuses bad quantities, currencies and expected totals', () => {
    given([])
      .when(place({ items: [{ sku: asSku('espresso'), quantity: 0 }] }))
      .then(InvalidQuantity, { field: 'lines/0/quantity', quantity: 0 });
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
