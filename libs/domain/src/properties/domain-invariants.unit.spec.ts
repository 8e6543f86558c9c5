import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors/index.js';
import type { InvoiceCommand } from '../invoices/invoice.commands.js';
import type { InvoiceEvent } from '../invoices/invoice.events.js';
import { decider as invoiceDecider, outstandingBalance } from '../invoices/invoice.decider.js';
import type { InvoiceState } from '../invoices/invoice.decider.js';
import { PaymentExceedsBalance } from '../invoices/invoice.errors.js';
import type { OrderCommand } from '../orders/order.commands.js';
import { decider as orderDecider } from '../orders/order.decider.js';
import {
  asCustomerRef,
  asInvoiceId,
  asOrderId,
  asPaymentId,
  asSaleId,
  asSku,
  asStockCountId,
  asTenantId,
  money,
} from '../values/index.js';
import type { StockCountCommand } from '../stock-counts/stock-count.commands.js';
import { decider as stockCountDecider } from '../stock-counts/stock-count.decider.js';
import { menuOf, runCommands } from '../testing/index.js';

const tenantId = asTenantId('t1');
const invoiceId = asInvoiceId('inv-1');
const orderId = asOrderId('ord-1');
const stockCountId = asStockCountId('sc-1');
const at = '2026-01-31T12:00:00.000Z';

// A small pool of payment ids, so sequences reuse ids, charge unreserved payments and repeat outcomes.
const paymentId = fc.constantFrom(...['p0', 'p1', 'p2', 'p3', 'p4'].map(asPaymentId));
const amount = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 1, max: 4000 }) },
  { weight: 1, arbitrary: fc.integer({ min: -50, max: 0 }) },
  { weight: 1, arbitrary: fc.double({ min: 0.1, max: 100, noNaN: true }) },
);
const currency = fc.constantFrom('EUR', 'EUR', 'EUR', 'USD');

const paymentCommand: fc.Arbitrary<InvoiceCommand> = fc.oneof(
  fc
    .record({ paymentId, amount, currency, method: fc.constantFrom('cash' as const, 'card' as const) })
    .map(({ paymentId, amount, currency, method }): InvoiceCommand => ({
      type: 'RecordPayment',
      data: { invoiceId, paymentId, amount: money(amount, currency), method, recordedAt: at },
    })),
  fc.record({ paymentId, amount, currency }).map(({ paymentId, amount, currency }): InvoiceCommand => ({
    type: 'ReserveCardPayment',
    data: { invoiceId, paymentId, amount: money(amount, currency), reservedAt: at },
  })),
  fc
    .record({ paymentId, approved: fc.boolean(), reference: fc.constantFrom('gw-a', 'gw-b') })
    .map(({ paymentId, approved, reference }): InvoiceCommand => ({
      type: 'RecordCardCharge',
      data: {
        invoiceId,
        paymentId,
        gatewayReference: reference,
        outcome: approved ? { status: 'approved' } : { status: 'declined', reason: 'declined' },
        recordedAt: at,
      },
    })),
);

const issueInvoice = (total: number): InvoiceCommand => ({
  type: 'IssueInvoice',
  data: { tenantId, invoiceId, customerRef: asCustomerRef('c'), currency: 'EUR', total, issuedAt: at },
});

describe('invoice invariants', () => {
  it('for any sequence of payments, paid never exceeds the total and outstanding is never negative', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.array(paymentCommand, { maxLength: 30 }),
        (total, commands) => {
          let state: InvoiceState = invoiceDecider.evolve(invoiceDecider.initialState(), {
            type: 'InvoiceIssued',
            data: {
              tenantId,
              invoiceId,
              customerRef: asCustomerRef('c'),
              lines: [],
              total: money(total, 'EUR'),
              issuedAt: at,
            },
          });
          // A model kept from the events alone, so the checks do not lean on the code under test.
          let paid = 0;
          let reserved = 0;
          for (const command of commands) {
            const outstandingBefore = total - paid - reserved;
            let events: readonly InvoiceEvent[] = [];
            try {
              events = invoiceDecider.decide(command, state);
            } catch (error) {
              if (!(error instanceof DomainError)) throw error;
              // The balance guard refuses exactly the amounts above what is outstanding.
              if (
                error instanceof PaymentExceedsBalance &&
                (command.type === 'RecordPayment' || command.type === 'ReserveCardPayment')
              ) {
                expect(command.data.amount.amount).toBeGreaterThan(outstandingBefore);
              }
            }
            for (const event of events) {
              if (event.type === 'PaymentRecorded') paid += event.data.amount.amount;
              if (event.type === 'CardPaymentReserved') reserved += event.data.amount.amount;
              if (event.type === 'CardPaymentCaptured') {
                paid += event.data.amount.amount;
                reserved -= event.data.amount.amount;
              }
              if (event.type === 'CardPaymentDeclined') reserved -= event.data.amount.amount;
            }
            if (
              events.length > 0 &&
              (command.type === 'RecordPayment' || command.type === 'ReserveCardPayment')
            ) {
              expect(command.data.amount.amount).toBeLessThanOrEqual(outstandingBefore);
            }
            state = events.reduce(invoiceDecider.evolve, state);
            expect(paid).toBeLessThanOrEqual(total);
            expect(reserved).toBeGreaterThanOrEqual(0);
            expect(total - paid - reserved).toBeGreaterThanOrEqual(0);
            if (state.status !== 'issued') throw new Error('the invoice must stay issued');
            expect({ paid: state.paid, reserved: state.reserved }).toEqual({ paid, reserved });
            expect(outstandingBalance(state).amount).toBe(total - paid - reserved);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a payment that fits the balance is accepted', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 10_000 }),
        (total, payment) => {
          const run = runCommands(invoiceDecider, [
            issueInvoice(total),
            {
              type: 'RecordPayment',
              data: {
                invoiceId,
                paymentId: asPaymentId('p'),
                amount: money(payment, 'EUR'),
                method: 'cash',
                recordedAt: at,
              },
            },
          ]);
          expect(run.rejections.length === 0).toBe(payment <= total);
        },
      ),
    );
  });
});

const orderCommand: fc.Arbitrary<OrderCommand> = fc.oneof(
  fc.option(fc.constantFrom(500, 600), { nil: undefined }).map((expectedTotal): OrderCommand => ({
    type: 'PlaceOrder',
    data: {
      tenantId,
      orderId,
      currency: 'EUR',
      items: [{ sku: asSku('espresso'), quantity: 2 }],
      menu: menuOf([{ sku: 'espresso', unitPrice: 250 }]),
      ...(expectedTotal === undefined ? {} : { expectedTotal }),
      placedAt: at,
    },
  })),
  fc.constant<OrderCommand>({ type: 'ApproveOrder', data: { orderId, approvedAt: at } }),
  fc.constant<OrderCommand>({ type: 'ServeOrder', data: { orderId, servedAt: at } }),
  fc.constantFrom('s1', 's2').map((saleId): OrderCommand => ({
    type: 'CompleteOrder',
    data: { orderId, saleId: asSaleId(saleId), completedAt: at },
  })),
);

describe('order invariants', () => {
  it('records a sale at most once per order, only after serving, whatever the command sequence', () => {
    fc.assert(
      fc.property(fc.array(orderCommand, { maxLength: 20 }), (commands) => {
        const { events, state } = runCommands(orderDecider, commands);
        const types = events.map((event) => event.type);
        const sales = types.filter((type) => type === 'SaleRecorded').length;
        expect(sales).toBeLessThanOrEqual(1);
        expect(types.filter((type) => type === 'OrderCompleted').length).toBe(sales);
        expect(sales === 1).toBe(state.status === 'completed');
        if (sales === 1) {
          const saleAt = types.indexOf('SaleRecorded');
          expect(types[saleAt - 1]).toBe('OrderCompleted');
          expect(types.slice(0, saleAt)).toContain('OrderServed');
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('order pricing', () => {
  it('prices every line from the menu, whatever total the client claims, and holds it iff the totals differ', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.record({
            sku: fc.constantFrom('a', 'b', 'c', 'd'),
            unitPrice: fc.integer({ min: 0, max: 5000 }),
          }),
          { selector: (item) => item.sku, minLength: 1 },
        ),
        fc.array(fc.record({ pick: fc.nat(), quantity: fc.integer({ min: 1, max: 9 }) }), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: undefined }),
        (menuItems, picks, expectedTotal) => {
          const ordered = picks.map(({ pick, quantity }) => ({
            sku: asSku((menuItems[pick % menuItems.length] as { sku: string }).sku),
            quantity,
          }));
          const events = orderDecider.decide(
            {
              type: 'PlaceOrder',
              data: {
                tenantId,
                orderId,
                currency: 'EUR',
                items: ordered,
                menu: menuOf(menuItems),
                ...(expectedTotal === undefined ? {} : { expectedTotal }),
                placedAt: at,
              },
            },
            orderDecider.initialState(),
          );
          const [placed, held] = events;
          if (placed?.type !== 'OrderPlaced') throw new Error('no OrderPlaced');
          const priceOf = (sku: string) => menuItems.find((item) => item.sku === sku)?.unitPrice;
          expect(placed.data.lines.map((line) => line.unitPrice)).toEqual(
            ordered.map(({ sku }) => priceOf(sku)),
          );
          const menuTotal = ordered.reduce(
            (sum, { sku, quantity }) => sum + (priceOf(sku) ?? 0) * quantity,
            0,
          );
          expect(placed.data.total).toEqual(money(menuTotal, 'EUR'));
          expect(held?.type === 'OrderHeldForReview').toBe(
            expectedTotal !== undefined && expectedTotal !== menuTotal,
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

const stockCountCommand: fc.Arbitrary<StockCountCommand> = fc.oneof(
  fc.constant<StockCountCommand>({ type: 'OpenStockCount', data: { tenantId, stockCountId, openedAt: at } }),
  fc
    .record({ sku: fc.constantFrom('a', 'b', 'c'), quantity: fc.integer({ min: -1, max: 20 }) })
    .map(({ sku, quantity }): StockCountCommand => ({
      type: 'RecordCountLine',
      data: { stockCountId, sku: asSku(sku), countedQuantity: quantity, recordedAt: at },
    })),
  fc.constant<StockCountCommand>({ type: 'PostStockCount', data: { stockCountId, postedAt: at } }),
);

describe('stock count invariants', () => {
  it('posts a stock count at most once, never empty, and nothing is recorded after it', () => {
    fc.assert(
      fc.property(fc.array(stockCountCommand, { maxLength: 20 }), (commands) => {
        const { events } = runCommands(stockCountDecider, commands);
        const types = events.map((event) => event.type);
        const postAt = types.indexOf('StockCountPosted');
        expect(types.filter((type) => type === 'StockCountPosted').length).toBeLessThanOrEqual(1);
        if (postAt >= 0) {
          expect(types.slice(postAt + 1)).toEqual([]);
          const posted = events[postAt];
          expect(posted?.type === 'StockCountPosted' && posted.data.lines.length > 0).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
