import { describe, expect, it } from 'vitest';
import { CurrencyMismatch, InvalidAmount, InvalidCurrency, InvalidQuantity } from '../errors/index.js';
import { asCustomerRef, asInvoiceId, asPaymentId, asTenantId, money } from '../values/index.js';
import { deciderSpecification } from '../testing/index.js';
import type {
  InvoiceLine,
  IssueInvoice,
  RecordCardCharge,
  RecordPayment,
  ReserveCardPayment,
} from './invoice.commands.js';
import { decider, evolve, initialState, outstandingBalance } from './invoice.decider.js';
import {
  CardChargeAlreadyRecorded,
  CardReservationNotFound,
  EmptyInvoice,
  InvoiceAlreadyIssued,
  InvoiceNotFound,
  PaymentAlreadyRecorded,
  PaymentExceedsBalance,
} from './invoice.errors.js';
import type {
  CardPaymentCaptured,
  CardPaymentDeclined,
  CardPaymentReserved,
  InvoiceEvent,
  InvoiceIssued,
  PaymentRecorded,
} from './invoice.events.js';

const given = deciderSpecification(decider);
const tenantId = asTenantId('tenant-1');
const invoiceId = asInvoiceId('inv-1');
const customerRef = asCustomerRef('cust-42');
const at = '2026-01-31T12:00:00.000Z';
const eur = (amount: number) => money(amount, 'EUR');
const ids = { tenantId, invoiceId };

const lines: InvoiceLine[] = [
  { description: 'Espresso', quantity: 2, unitPrice: 250 },
  { description: 'Croissant', quantity: 1, unitPrice: 500 },
];

const issue = (
  amount: { lines: readonly InvoiceLine[] } | { total: number },
  currency = 'EUR',
): IssueInvoice => ({
  type: 'IssueInvoice',
  data: { tenantId, invoiceId, customerRef, currency, issuedAt: at, ...amount },
});

const issued = (total = 1000): InvoiceIssued => ({
  type: 'InvoiceIssued',
  data: { tenantId, invoiceId, customerRef, lines: [], total: eur(total), issuedAt: at },
});

const pay = (
  paymentId: string,
  amount: number,
  method: 'cash' | 'card' = 'cash',
  currency = 'EUR',
): RecordPayment => ({
  type: 'RecordPayment',
  data: {
    invoiceId,
    paymentId: asPaymentId(paymentId),
    amount: money(amount, currency),
    method,
    recordedAt: at,
  },
});

const paid = (paymentId: string, amount: number, method: 'cash' | 'card' = 'cash'): PaymentRecorded => ({
  type: 'PaymentRecorded',
  data: { ...ids, paymentId: asPaymentId(paymentId), amount: eur(amount), method, recordedAt: at },
});

const reserve = (paymentId: string, amount: number, currency = 'EUR'): ReserveCardPayment => ({
  type: 'ReserveCardPayment',
  data: { invoiceId, paymentId: asPaymentId(paymentId), amount: money(amount, currency), reservedAt: at },
});

const reserved = (paymentId: string, amount: number): CardPaymentReserved => ({
  type: 'CardPaymentReserved',
  data: { ...ids, paymentId: asPaymentId(paymentId), amount: eur(amount), reservedAt: at },
});

const charge = (
  paymentId: string,
  outcome: RecordCardCharge['data']['outcome'],
  gatewayReference = 'gw-1',
): RecordCardCharge => ({
  type: 'RecordCardCharge',
  data: { invoiceId, paymentId: asPaymentId(paymentId), gatewayReference, outcome, recordedAt: at },
});

const captured = (paymentId: string, amount: number, gatewayReference = 'gw-1'): CardPaymentCaptured => ({
  type: 'CardPaymentCaptured',
  data: { ...ids, paymentId: asPaymentId(paymentId), amount: eur(amount), gatewayReference, capturedAt: at },
});

const declined = (paymentId: string, amount: number, reason = 'insufficient funds'): CardPaymentDeclined => ({
  type: 'CardPaymentDeclined',
  data: {
    ...ids,
    paymentId: asPaymentId(paymentId),
    amount: eur(amount),
    gatewayReference: 'gw-1',
    reason,
    declinedAt: at,
  },
});

describe('IssueInvoice', () => {
  it('issues an invoice whose total is the sum of its lines', () => {
    given([])
      .when(issue({ lines }))
      .then([
        {
          type: 'InvoiceIssued',
          data: { tenantId, invoiceId, customerRef, lines, total: eur(1000), issuedAt: at },
        },
      ]);
  });

  it('issues an invoice with a bare total and no lines', () => {
    given([])
      .when(issue({ total: 1000 }))
      .then([issued(1000)]);
  });

  it('issues an invoice once', () => {
    given([issued()])
      .when(issue({ total: 1000 }))
      .then(InvoiceAlreadyIssued, { invoiceId });
  });

  it.each(['eur', 'EURO', 'E1R', ''])('refuses the currency %j', (currency) => {
    given([])
      .when(issue({ total: 1000 }, currency))
      .then(InvalidCurrency, { currency });
  });

  it('refuses an invoice without lines', () => {
    given([])
      .when(issue({ lines: [] }))
      .then(EmptyInvoice);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses a line quantity of %s', (quantity) => {
    given([])
      .when(issue({ lines: [{ description: 'Tea', quantity, unitPrice: 300 }] }))
      .then(InvalidQuantity, { field: 'lines/0/quantity', quantity });
  });

  it.each([-1, 2.5, 2 ** 53])('refuses a unit price of %s', (unitPrice) => {
    given([])
      .when(issue({ lines: [{ description: 'Tea', quantity: 1, unitPrice }] }))
      .then(InvalidAmount, { field: 'lines/0/unitPrice', amount: unitPrice });
  });

  it.each([0, -100, 12.5, Number.POSITIVE_INFINITY])('refuses a total of %s', (total) => {
    given([]).when(issue({ total })).then(InvalidAmount, { field: 'total', amount: total });
  });

  it('refuses lines that add up to nothing', () => {
    given([])
      .when(issue({ lines: [{ description: 'Water', quantity: 1, unitPrice: 0 }] }))
      .then(InvalidAmount, { field: 'total', amount: 0 });
  });

  it('refuses lines whose sum is beyond exact integers', () => {
    given([])
      .when(issue({ lines: [{ description: 'Gold', quantity: 2, unitPrice: Number.MAX_SAFE_INTEGER }] }))
      .then(InvalidAmount);
  });
});

describe('RecordPayment', () => {
  it('records a cash payment', () => {
    given([issued()])
      .when(pay('p1', 400))
      .then([paid('p1', 400)]);
  });

  it('records a card payment taken on a standalone terminal', () => {
    given([issued()])
      .when(pay('p1', 400, 'card'))
      .then([paid('p1', 400, 'card')]);
  });

  it('accepts exactly the outstanding balance', () => {
    given([issued(), paid('p1', 400)])
      .when(pay('p2', 600))
      .then([paid('p2', 600)]);
  });

  it('refuses a payment above the outstanding balance, saying what is outstanding', () => {
    given([issued(), paid('p1', 400)])
      .when(pay('p2', 601))
      .then(PaymentExceedsBalance, {
        invoiceId,
        paymentId: asPaymentId('p2'),
        amount: eur(601),
        outstanding: eur(600),
      });
  });

  it('refuses any payment on a fully paid invoice', () => {
    given([issued(), paid('p1', 1000)])
      .when(pay('p2', 1))
      .then(PaymentExceedsBalance);
  });

  it('counts card reservations against the balance', () => {
    given([issued(), reserved('c1', 600)])
      .when(pay('p1', 401))
      .then(PaymentExceedsBalance);
    given([issued(), reserved('c1', 600)])
      .when(pay('p1', 400))
      .then([paid('p1', 400)]);
  });

  it.each([0, -5, 1.5, Number.NaN, 2 ** 53])('refuses an amount of %s', (amount) => {
    given([issued()]).when(pay('p1', amount)).then(InvalidAmount, { field: 'amount', amount });
  });

  it('refuses a payment in another currency', () => {
    given([issued()])
      .when(pay('p1', 100, 'cash', 'USD'))
      .then(CurrencyMismatch, { expected: 'EUR', given: 'USD' });
  });

  it('refuses a payment id used before', () => {
    given([issued(), paid('p1', 100)])
      .when(pay('p1', 100))
      .then(PaymentAlreadyRecorded, { invoiceId, paymentId: asPaymentId('p1') });
    given([issued(), reserved('p1', 100)])
      .when(pay('p1', 100))
      .then(PaymentAlreadyRecorded);
  });

  it('refuses a payment on an invoice never issued', () => {
    given([]).when(pay('p1', 100)).then(InvoiceNotFound, { invoiceId });
  });
});

describe('ReserveCardPayment', () => {
  it('holds the amount against the balance', () => {
    given([issued()])
      .when(reserve('c1', 700))
      .then([reserved('c1', 700)]);
  });

  it('keeps two concurrent card payments from overspending', () => {
    given([issued(), reserved('c1', 600)])
      .when(reserve('c2', 600))
      .then(PaymentExceedsBalance, {
        invoiceId,
        paymentId: asPaymentId('c2'),
        amount: eur(600),
        outstanding: eur(400),
      });
  });

  it('releases the hold when the gateway declines', () => {
    given([issued(), reserved('c1', 600), declined('c1', 600)])
      .when(reserve('c2', 1000))
      .then([reserved('c2', 1000)]);
  });

  it('refuses an invalid amount, another currency, a used id, and an unknown invoice', () => {
    given([issued()]).when(reserve('c1', 0)).then(InvalidAmount);
    given([issued()])
      .when(reserve('c1', 100, 'GBP'))
      .then(CurrencyMismatch);
    given([issued(), paid('c1', 100)])
      .when(reserve('c1', 100))
      .then(PaymentAlreadyRecorded);
    given([]).when(reserve('c1', 100)).then(InvoiceNotFound);
  });
});

describe('RecordCardCharge', () => {
  it('captures an approved charge for the reserved amount', () => {
    given([issued(), reserved('c1', 600)])
      .when(charge('c1', { status: 'approved' }))
      .then([captured('c1', 600)]);
  });

  it('records a declined charge with its reason', () => {
    given([issued(), reserved('c1', 600)])
      .when(charge('c1', { status: 'declined', reason: 'insufficient funds' }))
      .then([declined('c1', 600)]);
  });

  it('accepts the same outcome twice and adds nothing (the webhook after the synchronous answer)', () => {
    given([issued(), reserved('c1', 600), captured('c1', 600)])
      .when(charge('c1', { status: 'approved' }))
      .then([]);
    given([issued(), reserved('c1', 600), declined('c1', 600)])
      .when(charge('c1', { status: 'declined', reason: 'other words' }))
      .then([]);
  });

  it('refuses a different outcome after one was recorded', () => {
    given([issued(), reserved('c1', 600), captured('c1', 600)])
      .when(charge('c1', { status: 'declined', reason: 'late' }))
      .then(CardChargeAlreadyRecorded, {
        invoiceId,
        paymentId: asPaymentId('c1'),
        recorded: 'captured',
        gatewayReference: 'gw-1',
      });
    given([issued(), reserved('c1', 600), declined('c1', 600)])
      .when(charge('c1', { status: 'approved' }))
      .then(CardChargeAlreadyRecorded);
    given([issued(), reserved('c1', 600), captured('c1', 600)])
      .when(charge('c1', { status: 'approved' }, 'gw-2'))
      .then(CardChargeAlreadyRecorded);
  });

  it('refuses a charge without a reservation', () => {
    given([issued()])
      .when(charge('c1', { status: 'approved' }))
      .then(CardReservationNotFound, {
        invoiceId,
        paymentId: asPaymentId('c1'),
      });
    given([issued(), paid('c1', 100)])
      .when(charge('c1', { status: 'approved' }))
      .then(CardReservationNotFound);
    given([])
      .when(charge('c1', { status: 'approved' }))
      .then(InvoiceNotFound);
  });
});

describe('invoice state', () => {
  const fold = (events: readonly InvoiceEvent[]) => events.reduce(evolve, initialState());

  it('outstanding = total − paid − reserved', () => {
    const state = fold([
      issued(1000),
      paid('p1', 100),
      reserved('c1', 200),
      reserved('c2', 300),
      captured('c1', 200),
      declined('c2', 300),
    ]);
    if (state.status !== 'issued') throw new Error('expected an issued invoice');
    expect({ paid: state.paid, reserved: state.reserved }).toEqual({ paid: 300, reserved: 0 });
    expect(outstandingBalance(state)).toEqual(eur(700));
    expect(state.payments.get(asPaymentId('c2'))).toEqual({
      status: 'declined',
      amount: 300,
      gatewayReference: 'gw-1',
      reason: 'insufficient funds',
    });
  });

  it('ignores payment events before the invoice exists', () => {
    expect(fold([paid('p1', 100)])).toEqual({ status: 'none' });
  });
});
